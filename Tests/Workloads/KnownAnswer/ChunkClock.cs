using EtwSerializerProfiler.RunMarkers;

namespace EtwSerializerProfiler.Workloads;

/// <summary>
/// Thread CPU time of one chunk of work, less the GC pauses inside it: a gen0 GC runs on the allocating thread, and
/// the analyzer's reflection share is a share of the time outside GC, so the truth leaves GC out the same way.
/// </summary>
public static class ChunkClock
{
    public static double Ms(Action chunk)
    {
        var pause = GC.GetTotalPauseDuration();
        var before = NativeThreadInfo.CurrentThreadCpuTime();
        chunk();
        var cpu = NativeThreadInfo.CurrentThreadCpuTime() - before;
        return Math.Max(0, (cpu - (GC.GetTotalPauseDuration() - pause)).TotalMilliseconds);
    }
}
