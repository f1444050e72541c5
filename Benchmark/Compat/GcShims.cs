namespace EtwSerializerProfiler.Compat;

/// <summary>
/// The in-process GC counters on .NET Framework, which has fewer of them than .NET 10 (docs/windows.md):
/// <list type="bullet">
/// <item>allocations come from AppDomain resource monitoring: the whole AppDomain's (all threads), at allocation-context
/// granularity (about 8 KB), instead of the calling thread's exact count;</item>
/// <item>there is no GC pause counter at all: GetTotalPauseDuration is always zero, and the trace's GC pauses (ETW
/// GC/SuspendEE events) are the only pause figure of a .NET Framework run.</item>
/// </list>
/// </summary>
internal static class GcShims
{
    static GcShims() => AppDomain.MonitoringIsEnabled = true;

    extension(GC)
    {
        public static long GetAllocatedBytesForCurrentThread() => AppDomain.CurrentDomain.MonitoringTotalAllocatedMemorySize;

        public static long GetTotalAllocatedBytes(bool precise = false) => AppDomain.CurrentDomain.MonitoringTotalAllocatedMemorySize;

        public static TimeSpan GetTotalPauseDuration() => TimeSpan.Zero;
    }
}
