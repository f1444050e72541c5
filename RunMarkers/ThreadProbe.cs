using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.RunMarkers;

/// <summary>
/// The worker thread's allocated bytes around a run, for <see cref="MarkedRuns"/> (its CPU is read by
/// <see cref="RunMarker"/> itself, next to the Stopwatch). The read does not allocate, so it cannot count itself.
/// </summary>
internal sealed class ThreadProbe : IRunProbe
{
    private long _allocatedBefore;
    private long _allocatedAfter;

    /// <summary>Null on netstandard2.0: .NET Framework has no per-thread allocation counter.</summary>
    public long? AllocatedBytes =>
#if NET
        _allocatedAfter - _allocatedBefore;
#else
        null;
#endif

    [MethodImpl(Harness.Optimized)]
    public void BeforeRun() => _allocatedBefore = ThreadAllocatedBytes();

    [MethodImpl(Harness.Optimized)]
    public void AfterRun() => _allocatedAfter = ThreadAllocatedBytes();

    private static long ThreadAllocatedBytes() =>
#if NET
        GC.GetAllocatedBytesForCurrentThread();
#else
        0;
#endif
}
