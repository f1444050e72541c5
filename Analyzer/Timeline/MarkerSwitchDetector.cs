namespace EtwSerializerProfiler.Analyzer.Timeline;

/// <summary>One kernel context switch, reduced to what run detection needs.</summary>
/// <param name="OldThreadWaiting">The thread switched out went into a wait (ETW OldThreadState = Wait), not preempted.</param>
internal readonly record struct ContextSwitch(double TimeMs, int OldThreadId, int NewThreadId, bool OldThreadWaiting);

/// <summary>A run's marker wait: the marker thread switched out into its wait at StartMs and back in at EndMs.</summary>
internal sealed record MarkerWait(int MarkerThreadId, double StartMs, double EndMs);

/// <summary>
/// Finds each benchmark run's marker wait in context switches: ETW's as the pass reads them, the kernel session's
/// through <see cref="MarkerSwitchReplay"/>. Per run the marker thread wakes from its idle wait
/// (armed by the worker after RunStart), switches out into the run wait, and is switched back in when the worker
/// releases it after RunEnd. Only the marker named by RunStart's MarkerThreadId is followed, and only waits that
/// begin after that RunStart count, so a wait can never be charged to two runs. With the worker's RunEnd in the
/// trace, the run wait is the one the marker is in at RunEnd (a GC or idle wait cannot be: the worker is running
/// managed code then); without it, the last complete wait before RunStop. Inconsistent switch sequences (a switch
/// in without a switch out, or the reverse) mean lost events: that run gets no marker wait rather than a wrong one.
/// Pure and portable: fed by the analyzer on Windows and by the replay on Linux, by synthetic sequences in tests.
/// </summary>
internal sealed class MarkerSwitchDetector
{
    private enum CpuState { Unknown, Running, Waiting, Preempted }

    private sealed class PendingRun(double startMs, int workerThreadId)
    {
        public double StartMs { get; } = startMs;
        public int WorkerThreadId { get; } = workerThreadId;
        public double? BeginMs { get; set; }
        public double? EndMs { get; set; }
        public double? WaitStartMs { get; set; }
        public MarkerWait? Candidate { get; set; }
        public bool Decided { get; set; }
    }

    private readonly Dictionary<int, PendingRun> _runByMarker = [];
    private readonly Dictionary<int, int> _markerByWorker = [];
    private readonly Dictionary<int, CpuState> _state = [];

    /// <summary>Switch sequences that could only happen if events were lost, on marker threads.</summary>
    public int LostSwitches { get; private set; }
    /// <summary>Runs that ended without a usable marker wait (not blocked at RunEnd, lost events, no switches).</summary>
    public int RunsWithoutWait { get; private set; }

    public void RunStart(double timeMs, int markerThreadId, int workerThreadId)
    {
        // A RunStop was lost: the previous run of this marker ends here, without a wait reaching into this run.
        if (_runByMarker.Remove(markerThreadId, out var stale)) Finish(markerThreadId, stale);
        _runByMarker[markerThreadId] = new PendingRun(timeMs, workerThreadId);
        _markerByWorker[workerThreadId] = markerThreadId;
        _state.TryAdd(markerThreadId, CpuState.Unknown);
    }

    public void RunBegin(double timeMs, int workerThreadId)
    {
        if (RunOfWorker(workerThreadId) is { } run) run.BeginMs ??= timeMs;
    }

    public void RunEnd(double timeMs, int workerThreadId)
    {
        if (RunOfWorker(workerThreadId) is { } run) run.EndMs ??= timeMs;
    }

    /// <summary>Returns the run wait this switch completes, if any.</summary>
    public MarkerWait? OnContextSwitch(ContextSwitch cs)
    {
        MarkerWait? completed = null;
        if (_state.TryGetValue(cs.OldThreadId, out var oldState)) SwitchOut(cs, oldState);
        if (_state.TryGetValue(cs.NewThreadId, out var newState)) completed = SwitchIn(cs, newState);
        return completed;
    }

    /// <summary>Ends the marker's run; returns its wait when only now it can be told which wait it was.</summary>
    public MarkerWait? RunStop(double timeMs, int markerThreadId)
    {
        if (!_runByMarker.Remove(markerThreadId, out var run)) return null;
        _markerByWorker.Remove(run.WorkerThreadId);
        return Finish(markerThreadId, run);
    }

    private void SwitchOut(ContextSwitch cs, CpuState state)
    {
        var marker = cs.OldThreadId;
        if (state is CpuState.Waiting or CpuState.Preempted) Lost(marker); // it was not on a CPU: its switch-in is missing
        _state[marker] = cs.OldThreadWaiting ? CpuState.Waiting : CpuState.Preempted;
        if (!_runByMarker.TryGetValue(marker, out var run)) return;
        run.WaitStartMs = cs.OldThreadWaiting && cs.TimeMs >= run.StartMs ? cs.TimeMs : null;
    }

    private MarkerWait? SwitchIn(ContextSwitch cs, CpuState state)
    {
        var marker = cs.NewThreadId;
        _state[marker] = CpuState.Running;
        if (state == CpuState.Running) Lost(marker); // already on a CPU: its switch-out is missing
        if (!_runByMarker.TryGetValue(marker, out var run) || run.WaitStartMs is not { } start) return null;
        run.WaitStartMs = null;
        var wait = new MarkerWait(marker, start, cs.TimeMs);
        if (run.Decided) return null;
        if (run.EndMs is { } end)
        {
            // Released only after RunEnd, so the run wait is the one that spans it; any later wait is not.
            if (start > end || cs.TimeMs < end) return null;
            run.Decided = true;
            return wait;
        }
        // A wait that ended before the worker started measuring was the idle wait (or a GC), not the run's.
        if (run.BeginMs is { } begin && cs.TimeMs < begin) return null;
        run.Candidate = wait;
        return null;
    }

    private MarkerWait? Finish(int marker, PendingRun run)
    {
        _markerByWorker.Remove(run.WorkerThreadId);
        if (run.Decided) return null;
        // Without RunEnd the last complete wait is the run wait: the idle wait always comes before it.
        if (run.EndMs is null && run.Candidate is { } candidate) return candidate;
        RunsWithoutWait++;
        return null;
    }

    /// <summary>The wait in progress has a missing end or start: it is dropped, never stretched over the gap.</summary>
    private void Lost(int marker)
    {
        LostSwitches++;
        if (_runByMarker.TryGetValue(marker, out var run)) run.WaitStartMs = null;
    }

    private PendingRun? RunOfWorker(int worker) =>
        _markerByWorker.TryGetValue(worker, out var marker) && _runByMarker.TryGetValue(marker, out var run) ? run : null;
}
