using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.RunMarkers;

/// <summary>
/// The worker thread's CPU clock and allocated bytes around a run, for <see cref="MarkedRuns"/>. Neither read allocates,
/// so taking them cannot trigger a GC or count itself.
/// </summary>
internal sealed class ThreadProbe : IRunProbe
{
    private TimeSpan _cpuBefore;
    private TimeSpan _cpuAfter;
    private long _allocatedBefore;
    private long _allocatedAfter;

    public double CpuMs => (_cpuAfter - _cpuBefore).TotalMilliseconds;

    /// <summary>Null on netstandard2.0: .NET Framework has no per-thread allocation counter.</summary>
    public long? AllocatedBytes =>
#if NET
        _allocatedAfter - _allocatedBefore;
#else
        null;
#endif

    [MethodImpl(Harness.Optimized)]
    public void BeforeRun()
    {
        _cpuBefore = NativeThreadInfo.CurrentThreadCpuTime();
        _allocatedBefore = ThreadAllocatedBytes();
    }

    [MethodImpl(Harness.Optimized)]
    public void AfterRun()
    {
        _allocatedAfter = ThreadAllocatedBytes();
        _cpuAfter = NativeThreadInfo.CurrentThreadCpuTime();
    }

    private static long ThreadAllocatedBytes() =>
#if NET
        GC.GetAllocatedBytesForCurrentThread();
#else
        0;
#endif
}
