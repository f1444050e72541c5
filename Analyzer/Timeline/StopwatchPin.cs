using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Timeline;

/// <summary>One event on both of the trace's clocks: raw ticks (what the Stopwatch reads) and milliseconds.</summary>
internal readonly record struct ClockRead(long Ticks, double Ms);

/// <summary>
/// RunEnd version 1 carries the Stopwatch's own reads. Between them and the events sit the thread CPU clock read and
/// the event writes, where a busy machine deschedules the worker (measured: windows 0.03-10 ms longer than the
/// Stopwatch, issue 22), so the window goes exactly to the reads when they fall inside the events' edges, as they must
/// on a shared clock (Stopwatch and the trace both use QPC, CLOCK_MONOTONIC on Linux); otherwise (a clock the trace
/// does not share) the events' edges stay.
/// </summary>
internal static class StopwatchPin
{
    /// <summary>How far a read may fall outside the events' edges and still be on their clock (rounding of the ms).</summary>
    public const double SlackMs = 0.01;

    /// <returns>Whether the window was moved to the Stopwatch's reads.</returns>
    public static bool Apply(RunDraft run, ClockRead begin, ClockRead end, long startTicks, long stopTicks)
    {
        // TraceEvent keeps the clock's frequency to itself: RunBegin and RunEnd, both on the raw clock and in ms, give it.
        if (end.Ticks <= begin.Ticks || end.Ms <= begin.Ms) return false;
        var msPerTick = (end.Ms - begin.Ms) / (end.Ticks - begin.Ticks);
        var start = begin.Ms + (startTicks - begin.Ticks) * msPerTick;
        var stop = begin.Ms + (stopTicks - begin.Ticks) * msPerTick;
        if (start > stop || start < begin.Ms - SlackMs || stop > end.Ms + SlackMs) return false;
        run.EventEdgesMs = (run.StartMs, run.EndMs);
        run.StartMs = start;
        run.EndMs = stop;
        run.PinnedToStopwatch = true;
        return true;
    }
}
