using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// The marker thread's run waits as the seeds find them in WPA (CSwitch into the wait, ReadyThread out of it), from
/// perf's sched_switch and sched_waking, through the same <see cref="MarkerSwitchDetector"/> the ETW path uses: run
/// events and the marker's switches are replayed in time order. A marker that was preempted rather than waiting
/// gets its CPU back without a wake-up, so for it the switch-in record ends the stretch.
/// </summary>
internal sealed class KernelMarkerWindows
{
    private enum Kind { Mark, Out, Wake, In }

    private readonly PassTimeline _timeline;
    private readonly HashSet<int> _markers;
    /// <summary>The run marks in time order (stable: marks at one time keep the pass's order), merged with the records as they come.</summary>
    private readonly List<int> _marks;
    private int _nextMark;
    private readonly MarkerSwitchDetector _detector = new();
    private readonly HashSet<int> _waitingOnWake = [];
    private readonly HashSet<int> _wokenNotIn = [];
    private readonly List<MarkerWait> _waits = [];
    private readonly List<(double Ms, Kind Kind, int Thread, char State, int Next)> _records = [];
    private bool _sawWakes;

    public KernelMarkerWindows(PassTimeline timeline)
    {
        _timeline = timeline;
        _markers = timeline.RunMarks.Where(m => m.Kind == RunMarkKind.Start).Select(m => m.MarkerThreadId).ToHashSet();
        _marks = [.. Enumerable.Range(0, timeline.RunMarks.Count).OrderBy(i => timeline.RunMarks[i].TimeMs)];
    }

    /// <summary>A trace read whole: the marker's waits, assigned to their runs (the cross-check's figures in the summary).</summary>
    public static KernelSessionSummary Apply(AnalysisDraft analysis, KernelTrace kernel, PassTimeline timeline, KernelSessionSummary summary)
    {
        var windows = new KernelMarkerWindows(timeline);
        windows.Add(kernel);
        return Assign(analysis, windows.Finish(), summary);
    }

    /// <summary>The next chunk's switches, wake-ups and switch-ins of the marker threads, replayed with the run marks before them.</summary>
    public void Add(KernelTrace chunk)
    {
        if (_markers.Count == 0) return;
        // Whether wake-ups end waits is the recording's: decided by the first chunk with any.
        _sawWakes |= chunk.Wakings.Count > 0;
        _records.Clear();
        var clock = _timeline.Clock;
        foreach (var o in chunk.SwitchOuts)
            if (_markers.Contains(o.ThreadId)) _records.Add((clock.ToRelativeMs(o.TimeNs), Kind.Out, o.ThreadId, o.State, o.NextThreadId));
        foreach (var w in chunk.Wakings)
            if (_markers.Contains(w.ThreadId)) _records.Add((clock.ToRelativeMs(w.TimeNs), Kind.Wake, w.ThreadId, ' ', 0));
        foreach (var (ns, thread) in chunk.SwitchIns)
            if (_markers.Contains(thread)) _records.Add((clock.ToRelativeMs(ns), Kind.In, thread, ' ', 0));
        _records.Sort(static (a, b) => a.Ms != b.Ms ? a.Ms.CompareTo(b.Ms) : a.Kind.CompareTo(b.Kind));
        foreach (var r in _records)
        {
            MarksUpTo(r.Ms);
            Record(r.Ms, r.Kind, r.Thread, r.State, r.Next);
        }
    }

    /// <summary>Every record is in: the marks after the last one, then the waits found.</summary>
    public List<MarkerWait> Finish()
    {
        MarksUpTo(double.PositiveInfinity);
        return _waits;
    }

    /// <summary>The run marks at or before this time (a mark sorts before a record at the same time).</summary>
    private void MarksUpTo(double ms)
    {
        for (; _nextMark < _marks.Count && _timeline.RunMarks[_marks[_nextMark]].TimeMs <= ms; _nextMark++)
        {
            var m = _timeline.RunMarks[_marks[_nextMark]];
            switch (m.Kind)
            {
                case RunMarkKind.Start: _detector.RunStart(m.TimeMs, m.MarkerThreadId, m.WorkerThreadId); break;
                case RunMarkKind.Begin: _detector.RunBegin(m.TimeMs, m.WorkerThreadId); break;
                case RunMarkKind.End: _detector.RunEnd(m.TimeMs, m.WorkerThreadId); break;
                case RunMarkKind.Stop: Found(_detector.RunStop(m.TimeMs, m.MarkerThreadId)); break;
            }
        }
    }

    private void Record(double ms, Kind kind, int thread, char state, int next)
    {
        switch (kind)
        {
            case Kind.Out:
                var waiting = state != 'R';
                if (waiting && _sawWakes) _waitingOnWake.Add(thread);
                Found(_detector.OnContextSwitch(new ContextSwitch(ms, thread, next, waiting)));
                break;
            case Kind.Wake:
                if (_waitingOnWake.Remove(thread))
                {
                    _wokenNotIn.Add(thread); // its switch-in follows and must not end a second stretch
                    Found(_detector.OnContextSwitch(new ContextSwitch(ms, 0, thread, false)));
                }
                break;
            case Kind.In:
                // Back from a wait, the wake-up already ended it (ReadyThread); back from preemption, or woken by
                // something outside the process (a timer), this does.
                if (!_wokenNotIn.Remove(thread))
                {
                    _waitingOnWake.Remove(thread);
                    Found(_detector.OnContextSwitch(new ContextSwitch(ms, 0, thread, false)));
                }
                break;
        }
    }

    private void Found(MarkerWait? wait)
    {
        if (wait is { } w) _waits.Add(w);
    }

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
