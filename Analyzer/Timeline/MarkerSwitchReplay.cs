namespace EtwSerializerProfiler.Analyzer.Timeline;

/// <summary>
/// The marker thread's run waits from a switch source read after the pass (the kernel session), through the same
/// <see cref="MarkerSwitchDetector"/> the ETW pass feeds as it goes. The pass's run marks
/// (<see cref="PassTimeline.RunMarks"/>) are replayed in time order, merged with the marker's records as they come;
/// a mark sorts before a record at the same time. The records must come in time order. When the source records
/// wake-ups, a wait ends at the wake-up (WPA's ReadyThread), else at the switch-in. A marker that was preempted
/// rather than waiting gets its CPU back without a wake-up, so for it the switch-in ends the stretch.
/// </summary>
internal sealed class MarkerSwitchReplay
{
    private readonly PassTimeline _timeline;
    private readonly HashSet<int> _markers;
    /// <summary>The run marks in time order (stable: marks at one time keep the pass's order).</summary>
    private readonly List<int> _marks;
    private int _nextMark;
    private readonly MarkerSwitchDetector _detector = new();
    private readonly HashSet<int> _waitingOnWake = [];
    private readonly HashSet<int> _wokenNotIn = [];
    private readonly List<MarkerWait> _waits = [];

    public MarkerSwitchReplay(PassTimeline timeline)
    {
        _timeline = timeline;
        _markers = timeline.RunMarks.Where(m => m.Kind == RunMarkKind.Start).Select(m => m.MarkerThreadId).ToHashSet();
        _marks = [.. Enumerable.Range(0, timeline.RunMarks.Count).OrderBy(i => timeline.RunMarks[i].TimeMs)];
    }

    /// <summary>Whether any run named a marker thread: without one there is nothing to follow.</summary>
    public bool HasMarkers => _markers.Count > 0;

    /// <summary>Whether the thread is a marker thread, whose records the replay needs.</summary>
    public bool Follows(int threadId) => _markers.Contains(threadId);

    /// <summary>Whether the source records wake-ups, so that they end waits; the source's adapter decides once it sees any.</summary>
    public bool WakesEndWaits { get; set; }

    /// <summary>The marker lost its CPU: into a wait, or preempted (<paramref name="waiting"/> false).</summary>
    public void SwitchOut(double ms, int threadId, bool waiting, int nextThreadId)
    {
        MarksUpTo(ms);
        if (waiting && WakesEndWaits) _waitingOnWake.Add(threadId);
        Found(_detector.OnContextSwitch(new ContextSwitch(ms, threadId, nextThreadId, waiting)));
    }

    /// <summary>The marker was woken; this ends its wait when <see cref="WakesEndWaits"/>.</summary>
    public void Wake(double ms, int threadId)
    {
        MarksUpTo(ms);
        if (!_waitingOnWake.Remove(threadId)) return;
        _wokenNotIn.Add(threadId); // its switch-in follows and must not end a second stretch
        Found(_detector.OnContextSwitch(new ContextSwitch(ms, 0, threadId, false)));
    }

    /// <summary>The marker got a CPU back.</summary>
    public void SwitchIn(double ms, int threadId)
    {
        MarksUpTo(ms);
        // Back from a wait, the wake-up already ended it (ReadyThread); back from preemption, or woken by
        // something outside the process (a timer), this does.
        if (_wokenNotIn.Remove(threadId)) return;
        _waitingOnWake.Remove(threadId);
        Found(_detector.OnContextSwitch(new ContextSwitch(ms, 0, threadId, false)));
    }

    /// <summary>Every record is in: the marks after the last one, then the waits found.</summary>
    public List<MarkerWait> Finish()
    {
        MarksUpTo(double.PositiveInfinity);
        return _waits;
    }

    /// <summary>The run marks at or before this time.</summary>
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

    private void Found(MarkerWait? wait)
    {
        if (wait is { } w) _waits.Add(w);
    }
}
