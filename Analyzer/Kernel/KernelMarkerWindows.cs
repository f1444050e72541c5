using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// The kernel session's adapter to <see cref="MarkerSwitchReplay"/>, which finds the marker thread's run waits (as the
/// seeds find them in WPA: CSwitch into the wait, ReadyThread out of it): each chunk's sched_switch, sched_waking and
/// switch-in records of the marker threads, in time order. Then the waits are assigned to their runs.
/// </summary>
internal sealed class KernelMarkerWindows
{
    /// <summary>At one time: a switch-out, then a wake-up, then a switch-in.</summary>
    private enum Kind { Out, Wake, In }

    private readonly PassTimeline _timeline;
    private readonly MarkerSwitchReplay _replay;
    private readonly List<(double Ms, Kind Kind, int Thread, char State, int Next)> _records = [];

    public KernelMarkerWindows(PassTimeline timeline)
    {
        _timeline = timeline;
        _replay = new MarkerSwitchReplay(timeline);
    }

    /// <summary>A trace read whole: the marker's waits, assigned to their runs (the cross-check's figures in the summary).</summary>
    public static KernelSessionSummary Apply(AnalysisDraft analysis, KernelTrace kernel, PassTimeline timeline, KernelSessionSummary summary)
    {
        var windows = new KernelMarkerWindows(timeline);
        windows.Add(kernel);
        return Assign(analysis, windows.Finish(), summary);
    }

    /// <summary>The next chunk's switches, wake-ups and switch-ins of the marker threads, in time order.</summary>
    public void Add(KernelTrace chunk)
    {
        if (!_replay.HasMarkers) return;
        // Whether wake-ups end waits is the recording's: decided by the first chunk with any.
        if (chunk.Wakings.Count > 0) _replay.WakesEndWaits = true;
        _records.Clear();
        var clock = _timeline.Clock;
        foreach (var o in chunk.SwitchOuts)
            if (_replay.Follows(o.ThreadId)) _records.Add((clock.ToRelativeMs(o.TimeNs), Kind.Out, o.ThreadId, o.State, o.NextThreadId));
        foreach (var w in chunk.Wakings)
            if (_replay.Follows(w.ThreadId)) _records.Add((clock.ToRelativeMs(w.TimeNs), Kind.Wake, w.ThreadId, ' ', 0));
        foreach (var (ns, thread) in chunk.SwitchIns)
            if (_replay.Follows(thread)) _records.Add((clock.ToRelativeMs(ns), Kind.In, thread, ' ', 0));
        _records.Sort(static (a, b) => a.Ms != b.Ms ? a.Ms.CompareTo(b.Ms) : a.Kind.CompareTo(b.Kind));
        foreach (var r in _records)
        {
            switch (r.Kind)
            {
                case Kind.Out: _replay.SwitchOut(r.Ms, r.Thread, waiting: r.State != 'R', r.Next); break;
                case Kind.Wake: _replay.Wake(r.Ms, r.Thread); break;
                case Kind.In: _replay.SwitchIn(r.Ms, r.Thread); break;
            }
        }
    }

    /// <summary>Every record is in: the marks after the last one, then the waits found.</summary>
    public List<MarkerWait> Finish() => _replay.Finish();

    /// <summary>Each wait goes to the run of its marker that it spans; the disagreement with RunBegin/RunEnd is kept for the cross-check.</summary>
    public static KernelSessionSummary Assign(AnalysisDraft analysis, IReadOnlyList<MarkerWait> waits, KernelSessionSummary summary)
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
