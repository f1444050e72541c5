using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// The marker thread's run waits as the seeds find them in WPA (CSwitch into the wait, ReadyThread out of it), from
/// perf's sched_switch and sched_waking, through the same <see cref="MarkerSwitchDetector"/> the ETW path uses: run
/// events and the marker's switches are replayed in time order. A marker that was preempted rather than waiting
/// gets its CPU back without a wake-up, so for it the switch-in record ends the stretch.
/// </summary>
internal static class KernelMarkerWindows
{
    private enum Kind { Mark, Out, Wake, In }

    /// <returns>The summary with the cross-check's figures.</returns>
    public static KernelSessionSummary Apply(AnalysisDraft analysis, KernelTrace kernel, PassTimeline timeline, KernelSessionSummary summary)
    {
        var markers = timeline.RunMarks.Where(m => m.Kind == RunMarkKind.Start).Select(m => m.MarkerThreadId).ToHashSet();
        if (markers.Count == 0 || kernel.SwitchOuts.Count == 0) return summary;
        var clock = timeline.Clock;
        var events = new List<(double Ms, Kind Kind, int Index)>();
        for (var i = 0; i < timeline.RunMarks.Count; i++) events.Add((timeline.RunMarks[i].TimeMs, Kind.Mark, i));
        for (var i = 0; i < kernel.SwitchOuts.Count; i++)
            if (markers.Contains(kernel.SwitchOuts[i].ThreadId)) events.Add((clock.ToRelativeMs(kernel.SwitchOuts[i].TimeNs), Kind.Out, i));
        for (var i = 0; i < kernel.Wakings.Count; i++)
            if (markers.Contains(kernel.Wakings[i].ThreadId)) events.Add((clock.ToRelativeMs(kernel.Wakings[i].TimeNs), Kind.Wake, i));
        var useWakes = kernel.Wakings.Count > 0;
        for (var i = 0; i < kernel.SwitchIns.Count; i++)
            if (markers.Contains(kernel.SwitchIns[i].ThreadId)) events.Add((clock.ToRelativeMs(kernel.SwitchIns[i].TimeNs), Kind.In, i));
        events.Sort((a, b) => a.Ms != b.Ms ? a.Ms.CompareTo(b.Ms) : a.Kind.CompareTo(b.Kind));

        var detector = new MarkerSwitchDetector();
        var waitingOnWake = new HashSet<int>();
        var wokenNotIn = new HashSet<int>();
        var waits = new List<MarkerWait>();
        foreach (var (ms, kind, index) in events)
        {
            MarkerWait? found = null;
            switch (kind)
            {
                case Kind.Mark:
                    var m = timeline.RunMarks[index];
                    switch (m.Kind)
                    {
                        case RunMarkKind.Start: detector.RunStart(ms, m.MarkerThreadId, m.WorkerThreadId); break;
                        case RunMarkKind.Begin: detector.RunBegin(ms, m.WorkerThreadId); break;
                        case RunMarkKind.End: detector.RunEnd(ms, m.WorkerThreadId); break;
                        case RunMarkKind.Stop: found = detector.RunStop(ms, m.MarkerThreadId); break;
                    }
                    break;
                case Kind.Out:
                    var o = kernel.SwitchOuts[index];
                    var waiting = o.State != 'R';
                    if (waiting && useWakes) waitingOnWake.Add(o.ThreadId);
                    found = detector.OnContextSwitch(new ContextSwitch(ms, o.ThreadId, o.NextThreadId, waiting));
                    break;
                case Kind.Wake:
                    var woken = kernel.Wakings[index].ThreadId;
                    if (waitingOnWake.Remove(woken))
                    {
                        wokenNotIn.Add(woken); // its switch-in follows and must not end a second stretch
                        found = detector.OnContextSwitch(new ContextSwitch(ms, 0, woken, false));
                    }
                    break;
                case Kind.In:
                    var back = kernel.SwitchIns[index].ThreadId;
                    // Back from a wait, the wake-up already ended it (ReadyThread); back from preemption, or woken by
                    // something outside the process (a timer), this does.
                    if (!wokenNotIn.Remove(back))
                    {
                        waitingOnWake.Remove(back);
                        found = detector.OnContextSwitch(new ContextSwitch(ms, 0, back, false));
                    }
                    break;
            }
            if (found is { } wait) waits.Add(wait);
        }
        return Assign(analysis, waits, summary);
    }

    /// <summary>Each wait goes to the run of its marker that it spans; the disagreement with RunBegin/RunEnd is kept for the cross-check.</summary>
    private static KernelSessionSummary Assign(AnalysisDraft analysis, List<MarkerWait> waits, KernelSessionSummary summary)
    {
        var differences = new List<double>();
        foreach (var wait in waits)
        {
            var run = analysis.Runs.FirstOrDefault(r => r.MarkerThreadId == wait.MarkerThreadId && wait.StartMs <= r.EndMs && wait.EndMs >= r.StartMs && r.SwitchWaitStartMs is null);
            if (run is null) continue;
            run.SwitchWaitStartMs = wait.StartMs;
            run.SwitchWaitEndMs = wait.EndMs;
            differences.Add(Math.Max(Math.Abs(wait.StartMs - run.StartMs), Math.Abs(wait.EndMs - run.EndMs)));
        }
        if (differences.Count == 0) return summary with { RunsWithSwitchWindow = 0 };
        differences.Sort();
        return summary with
        {
            RunsWithSwitchWindow = differences.Count,
            MaxSwitchWindowDisagreementMs = differences[^1],
            MedianSwitchWindowDisagreementMs = differences[differences.Count / 2],
        };
    }
}
