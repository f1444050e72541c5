using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.RunMarkers;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>
/// The in-process truth for one run: GC collections per generation, total GC pause, allocated bytes and CPU
/// time, read immediately outside the marker window so that a trace analysis can be checked against them.
/// Reading the counters allocates nothing, so taking them cannot trigger the GC they count.
/// </summary>
public readonly record struct InProcessCounters(int Gen0, int Gen1, int Gen2, TimeSpan GcPause, long AllocatedBytes, TimeSpan Cpu, long Exceptions)
{
    /// <param name="allThreads">Count every thread's allocations (multi-threaded runs), not just the caller's.</param>
    public static InProcessCounters Take(bool allThreads) => new(
        GC.CollectionCount(0),
        GC.CollectionCount(1),
        GC.CollectionCount(2),
        GC.GetTotalPauseDuration(),
        allThreads ? GC.GetTotalAllocatedBytes(precise: true) : GC.GetAllocatedBytesForCurrentThread(),
        allThreads ? NativeThreadInfo.ProcessCpuTime() : NativeThreadInfo.CurrentThreadCpuTime(),
        FirstChanceExceptions.Count);

    /// <summary>
    /// CollectionCount(n) counts collections of generation n or higher, so a gen2 GC bumps all three; the delta
    /// is converted to "GCs whose condemned generation was n", which is what a trace's GCStart Depth reports.
    /// </summary>
    public static (GcCounts Gcs, double PauseMs, long Allocated, double CpuMs, long Exceptions) Delta(InProcessCounters before, InProcessCounters after)
    {
        var d2 = after.Gen2 - before.Gen2;
        var d1 = after.Gen1 - before.Gen1 - d2;
        var d0 = after.Gen0 - before.Gen0 - d2 - d1;
        return (new GcCounts(d0, d1, d2),
            (after.GcPause - before.GcPause).TotalMilliseconds,
            after.AllocatedBytes - before.AllocatedBytes,
            (after.Cpu - before.Cpu).TotalMilliseconds,
            after.Exceptions - before.Exceptions);
    }
}
