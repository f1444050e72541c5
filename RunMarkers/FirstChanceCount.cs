using System;
using System.Threading;

namespace EtwSerializerProfiler.RunMarkers;

/// <summary>
/// Every first-chance exception the process throws, counted in-process (AppDomain.FirstChanceException). RunStop
/// carries a run's share, so a trace has each run's exact count without an event per throw (the runtime's throw event
/// costs about as much as the throw: docs/recorder.md#exceptions-without-stacks). The handler is added when the first
/// run marker is made, before any run opens.
/// </summary>
internal static class FirstChanceCount
{
    private static long _count;

    static FirstChanceCount() => AppDomain.CurrentDomain.FirstChanceException += (_, _) => Interlocked.Increment(ref _count);

    public static long Now => Interlocked.Read(ref _count);
}
