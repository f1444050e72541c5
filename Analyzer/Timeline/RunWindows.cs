using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Timeline;

/// <summary>
/// Finds the run windows of one pass from plain values (thread ids, times in ms, raw clock ticks, the run events'
/// fields, the marker method of a wait's stack): RunStart names a run, the marker's wait (or the worker's RunBegin)
/// opens it, RunEnd or the marker's wake-up closes it; another harness's iterations open and close their own. Runs
/// are strictly sequential (the benchmark's handshake), so at most one is open: <see cref="Open"/>, what the
/// collectors charge. The pass reads payloads and calls this; tests call it with hand-made sequences.
/// </summary>
/// <param name="runs">Where wanted runs are added, in the order they open (the analysis's runs).</param>
/// <param name="wanted">Whether a run is kept (--serializers; runs without names until they are named).</param>
/// <param name="unnamedSerializer">The serializer name of runs found from marker waits alone, named later.</param>
internal sealed class RunWindows(List<RunDraft> runs, Func<RunKey, bool> wanted, string unnamedSerializer)
{
    /// <summary>The serializers of runs left out (--serializers): an analysis left with none names them.</summary>
    public SortedSet<string> Skipped { get; } = new(StringComparer.Ordinal);

    private readonly Dictionary<int, RunStarted> _pendingByMarker = [];
    private bool _sawRunBegin;
    /// <summary>The last RunBegin on both clocks: RunEnd's Stopwatch reads are placed from it.</summary>
    private ClockRead? _runBeginClock;

    /// <summary>The run whose window was opened last; closed or not (check <see cref="RunDraft.Closed"/>).</summary>
    public RunDraft? Open { get; private set; }
    /// <summary>The open run's marker thread: its own events are never the run's cost.</summary>
    public int OpenMarker { get; private set; }
    /// <summary>A marker wait opened the run and the worker's RunBegin has not come yet: the worker is still handshaking.</summary>
    public bool AwaitingBegin { get; private set; }
    public bool SawRunEvents { get; private set; }
    public bool SawWaits { get; private set; }
    /// <summary>Runs found from marker waits alone (no RunStart), numbered in order.</summary>
    public int Unnamed { get; private set; }
    /// <summary>Runs whose window was found only after the fact (a marker wait from context switches, no RunBegin/RunEnd).</summary>
    public int LateWindows { get; private set; }

    /// <summary>The open run if an event of this thread is charged to it now (not the marker's; not before RunBegin).</summary>
    public RunDraft? ChargeableFor(int threadId) =>
        Open is { Closed: false } run && !AwaitingBegin && threadId != OpenMarker && wanted(run.Key) ? run : null;

    public void RunStart(RunStarted start)
    {
        SawRunEvents = true;
        _pendingByMarker[start.MarkerThreadId] = start;
    }

    /// <summary>
    /// RunThread, written by the worker between RunStart and RunBegin: another thread working for the worker's next
    /// run (the --threads crew). A RunThread with no run named for its worker is ignored.
    /// </summary>
    public void RunThread(int workerThreadId, int threadId)
    {
        if (threadId <= 0 || threadId == workerThreadId) return;
        foreach (var pending in _pendingByMarker.Values)
            if (pending.WorkerThreadId == workerThreadId && !pending.CrewThreadIds.Contains(threadId))
            {
                pending.CrewThreadIds.Add(threadId);
                return;
            }
    }

    /// <summary>
    /// The worker's RunBegin/RunEnd sit next to its Stopwatch reads, while the marker's wake-ups can lag by
    /// milliseconds on a busy machine, so they set the window's edges; the marker's wait is kept alongside
    /// (it is what WPA shows) and compared. RunBegin can precede the marker's wait event when the marker is
    /// preempted between arming and blocking, so either one opens the run.
    /// </summary>
    public void RunBegin(int workerThreadId, ClockRead at)
    {
        _sawRunBegin = true;
        _runBeginClock = at;
        if (Open is { Closed: false } open && open.WorkerThreadId == workerThreadId)
        {
            open.StartMs = at.Ms;
            AwaitingBegin = false;
            return;
        }
        var (marker, pending) = PendingForWorker(workerThreadId);
        if (pending is null) return;
        NewRun(pending, marker, workerThreadId, at.Ms, WindowSource.RunEvents);
    }

    /// <param name="stopwatchTicks">RunEnd version 1: the Stopwatch's start and stop reads; null from version 0.</param>
    public void RunEnd(int workerThreadId, ClockRead at, (long Start, long Stop)? stopwatchTicks)
    {
        if (Open is not { Closed: false } open || open.WorkerThreadId != workerThreadId) return;
        open.EndMs = at.Ms;
        open.Closed = true;
        if (stopwatchTicks is { } sw && _runBeginClock is { } begin) StopwatchPin.Apply(open, begin, at, sw.Start, sw.Stop);
    }

    /// <param name="exceptions">RunStop version 2: the process's first-chance exceptions during the run, counted in-process.</param>
    public void RunStop(int markerThreadId, RunKey key, double timeMs, double stopwatchMs, long? exceptions = null)
    {
        if (_pendingByMarker.Remove(markerThreadId, out var pending) && pending.Key == key)
        {
            // Neither RunBegin nor a marker wait was seen (an older benchmark, or a profile without them):
            // RunStart/RunStop bound the run, events in between could not be attributed as they came.
            var late = NewRun(pending, markerThreadId, pending.WorkerThreadId, pending.TimeMs, WindowSource.RunEvents);
            late.EndMs = timeMs;
            late.Closed = true;
            Open = null;
        }
        if (Open is { } open && open.Key == key && open.MarkerThreadId == markerThreadId)
        {
            if (!open.Closed) { open.EndMs = timeMs; open.Closed = true; }
            Open = null;
        }
        var run = runs.LastOrDefault(r => r.Key == key && r.MarkerThreadId == markerThreadId);
        if (run is null)
        {
            // A stop with no start: the run began before the trace did (esp record --pid attached mid-run), unless
            // --serializers left it out.
            if (wanted(key)) BegunBeforeTrace.Add(key);
            return;
        }
        run.StopwatchMs = stopwatchMs;
        run.InProcessExceptions = exceptions;
    }

    /// <summary>A WaitHandle wait began (EventPipe).</summary>
    /// <param name="markerMethod">The marker's run-wait method on the wait's stack, if any.</param>
    /// <param name="stackKnown">The wait has a resolvable stack: no marker method on it then means another wait.</param>
    public void WaitStart(int threadId, double timeMs, string? markerMethod, bool stackKnown)
    {
        SawWaits = true;
        if (Open is { } open && open.MarkerThreadId == threadId && open.MarkerWaitStartMs is null)
        {
            // The run was opened by the worker's RunBegin a moment earlier: this is its marker wait.
            open.MarkerWaitStartMs = timeMs;
            open.Source = WindowSource.MarkerWait;
            return;
        }
        var isMarkerWait = _pendingByMarker.TryGetValue(threadId, out var pending);
        if (!isMarkerWait && markerMethod is null) return;
        if (isMarkerWait && markerMethod is null && stackKnown)
            return; // a wait of the marker thread that is not the run wait (e.g. its idle wait)
        if (pending is not null) _pendingByMarker.Remove(threadId);
        // Without RunStart the run is named afterwards, from its samples' stack tags.
        var key = pending?.Key ?? new RunKey(unnamedSerializer, RunEvents.OperationOfMarkerMethod(markerMethod), 0, Unnamed++);
        var run = NewRun(pending ?? new RunStarted(key, "", threadId, 0, timeMs, null, 1), threadId, pending?.WorkerThreadId ?? 0, timeMs, WindowSource.MarkerWait);
        run.MarkerWaitStartMs = timeMs;
        // The worker's RunBegin will move the start to its Stopwatch read; until then it is still handshaking
        // (milliseconds, when it is descheduled), and that is not the run's cost.
        AwaitingBegin = _sawRunBegin && pending is not null;
    }

    /// <summary>A WaitHandle wait ended (EventPipe).</summary>
    public void WaitStop(int threadId, double timeMs)
    {
        if (Open is not { } open || threadId != open.MarkerThreadId || open.MarkerWaitStartMs is null) return;
        if (AwaitingBegin)
        {
            // The run's wait ends after the worker's RunEnd, so one ending before RunBegin was another wait of the
            // marker (its idle wait, begun after RunStart when it was preempted), taken for the run's because the
            // trace has no stack to tell them apart (a main session without stacks): the run's own comes next.
            open.MarkerWaitStartMs = null;
            return;
        }
        open.MarkerWaitEndMs = timeMs;
        if (!open.Closed) { open.EndMs = timeMs; open.Closed = true; }
    }

    /// <summary>
    /// A marker wait found in context switches (<see cref="MarkerSwitchDetector"/>). Usually the worker's RunBegin
    /// opened the run already and the wait is kept alongside, as on EventPipe; without RunBegin the wait is the only
    /// window, found only after the fact.
    /// </summary>
    public void MarkerWait(MarkerWait wait)
    {
        SawWaits = true;
        if (_pendingByMarker.Remove(wait.MarkerThreadId, out var pending))
        {
            var late = NewRun(pending, wait.MarkerThreadId, pending.WorkerThreadId, wait.StartMs, WindowSource.MarkerWait);
            late.EndMs = wait.EndMs;
            late.Closed = true;
            late.MarkerWaitStartMs = wait.StartMs;
            late.MarkerWaitEndMs = wait.EndMs;
            Open = null;
            LateWindows++;
            return;
        }
        var run = runs.LastOrDefault(r => r.MarkerThreadId == wait.MarkerThreadId);
        if (run is null || run.MarkerWaitStartMs is not null) return;
        // The run wait spans RunEnd; an older run of this marker (the newest one was filtered out) does not match.
        if (run.Closed && (wait.StartMs > run.EndMs || wait.EndMs < run.EndMs)) return;
        run.MarkerWaitStartMs = wait.StartMs;
        run.MarkerWaitEndMs = wait.EndMs;
        run.Source = WindowSource.MarkerWait;
    }

    /// <summary>Another harness's iteration began on <paramref name="start"/>'s worker thread (no marker).</summary>
    public RunDraft HarnessIterationStart(RunStarted start) =>
        NewRun(start, 0, start.WorkerThreadId, start.TimeMs, WindowSource.HarnessEvents);

    /// <returns>Whether it closed the open harness iteration of that thread.</returns>
    public bool HarnessIterationStop(int threadId, double timeMs)
    {
        if (Open is not { Closed: false, Source: WindowSource.HarnessEvents } open || open.WorkerThreadId != threadId) return false;
        open.EndMs = timeMs;
        open.Closed = true;
        return true;
    }

    /// <summary>
    /// The time before which every window is final, when the pass has reached <paramref name="nowMs"/>: a closed run's
    /// window no longer moves, an open one still may (its RunBegin moves the start; its RunEnd pins both edges to the
    /// Stopwatch's reads, which lie after the last RunBegin, less <see cref="StopwatchPin.SlackMs"/>), a RunStart still
    /// pending can open a window from its own time on (after the fact: RunStop, or a wait in context switches), and
    /// any other window opens now or later. What is counted into runs as the pass goes (Gc/RunGcs) waits for it.
    /// </summary>
    public double SettledBeforeMs(double nowMs)
    {
        var settled = nowMs;
        if (Open is { Closed: false } open)
        {
            settled = Math.Min(settled, open.StartMs);
            if (_runBeginClock is { } begin) settled = Math.Min(settled, begin.Ms);
        }
        foreach (var pending in _pendingByMarker.Values) settled = Math.Min(settled, pending.TimeMs);
        return settled - StopwatchPin.SlackMs;
    }

    /// <summary>Runs whose RunStop came with no start before it: they began before the trace (an attach mid-run) and are left out.</summary>
    public List<RunKey> BegunBeforeTrace { get; } = [];

    /// <summary>At the end of the pass: a run still open has no end, so no duration to report; it is taken out.</summary>
    /// <returns>The run taken out, if any.</returns>
    public RunDraft? DropUnended()
    {
        if (Open is not { Closed: false } open) return null;
        runs.Remove(open);
        Open = null;
        return open;
    }

    private (int Marker, RunStarted? Pending) PendingForWorker(int worker)
    {
        foreach (var (marker, pending) in _pendingByMarker)
            if (pending.WorkerThreadId == worker)
            {
                _pendingByMarker.Remove(marker);
                return (marker, pending);
            }
        return (0, null);
    }

    private RunDraft NewRun(RunStarted pending, int marker, int worker, double startMs, WindowSource source)
    {
        var key = pending.Key;
        var run = new RunDraft
        {
            Key = key, Data = pending.Data, MarkerThreadId = marker, WorkerThreadId = worker, StartMs = startMs, EndMs = startMs, Source = source,
            Operations = pending.Operations, WarmupFromEvents = pending.Warmup,
        };
        run.CrewThreadIds.AddRange(pending.CrewThreadIds);
        if (wanted(key)) runs.Add(run);
        else Skipped.Add(key.Serializer);
        // Runs are strictly sequential (the benchmark's handshake), so a new window closes any stale one.
        if (Open is not null && !Open.Closed) { Open.EndMs = startMs; Open.Closed = true; }
        Open = run;
        OpenMarker = marker;
        AwaitingBegin = false;
        return run;
    }
}
