using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Timeline;
using Xunit;

namespace EtwSerializerProfiler.Tests.Analyzer.Timeline;

/// <summary>
/// Run windows on hand-made event sequences shaped like the benchmark's handshake (RunStart on the marker; the marker
/// waits; RunBegin ... RunEnd on the worker; the worker releases the marker; RunStop), each with its exact answer.
/// Times are in ms; raw clock ticks are chosen at 1,000 per ms so the Stopwatch's reads land on known ms.
/// </summary>
public sealed class RunWindowsTests
{
    private const int Marker = 10, Worker = 20, Marker2 = 11, Worker2 = 21, Other = 99;
    private const string Unnamed = "(unnamed)";
    private static readonly RunKey A = new("A", "serialize", 100, 0);
    private static readonly RunKey B = new("B", "deserialize", 100, 0);

    private readonly List<RunDraft> _runs = [];
    private readonly RunWindows _w;

    public RunWindowsTests() => _w = new RunWindows(_runs, k => k.Serializer != "Filtered", Unnamed);

    private void Start(RunKey key, double ms, int marker = Marker, int worker = Worker, bool? warmup = false, long operations = 1) =>
        _w.RunStart(new RunStarted(key, "data", marker, worker, ms, warmup, operations));
    private static ClockRead At(double ms) => new((long)Math.Round(ms * 1000), ms);
    private void Begin(double ms, int worker = Worker) => _w.RunBegin(worker, At(ms));
    private void End(double ms, int worker = Worker, (long, long)? reads = null) => _w.RunEnd(worker, At(ms), reads);
    private void Stop(RunKey key, double ms, double stopwatchMs, int marker = Marker) => _w.RunStop(marker, key, ms, stopwatchMs);
    private void Wait(double ms, int thread = Marker, string? method = "SerializeDuration") => _w.WaitStart(thread, ms, method, stackKnown: true);

    [Fact]
    public void RunEventsAloneGiveTheWorkersEdgesAndTheStopwatch()
    {
        Start(A, 1.0, operations: 5);
        Assert.Null(_w.Open); // named, not opened: nothing is charged between RunStart and RunBegin
        Begin(2.0);
        var run = Assert.Single(_runs);
        Assert.Same(run, _w.ChargeableFor(Worker));
        Assert.Null(_w.ChargeableFor(Marker));
        End(5.0);
        Assert.Null(_w.ChargeableFor(Worker));
        Stop(A, 6.0, 2.75);
        Assert.Equal((A, "data", Marker, Worker), (run.Key, run.Data, run.MarkerThreadId, run.WorkerThreadId));
        Assert.Equal((2.0, 5.0, WindowSource.RunEvents), (run.StartMs, run.EndMs, run.Source));
        Assert.Equal((2.75, 5L, (bool?)false), (run.StopwatchMs, run.Operations, run.WarmupFromEvents));
        Assert.True(run.Closed);
        Assert.Null(run.MarkerWaitStartMs);
        Assert.Null(_w.Open);
        Assert.True(_w.SawRunEvents);
        Assert.False(_w.SawWaits);
    }

    [Fact]
    public void RunThreadsNameTheCrewOfTheWorkersNextRunOnlyOnceEach()
    {
        Start(A, 1.0, operations: 3);
        _w.RunThread(Worker, 31);
        _w.RunThread(Worker, 32);
        _w.RunThread(Worker, 31); // said twice: one thread
        _w.RunThread(Worker, Worker); // the worker is the run's anyway
        _w.RunThread(Worker2, 33); // another worker's: no run named for it
        Begin(2.0);
        End(5.0);
        Stop(A, 6.0, 3.0);
        var run = Assert.Single(_runs);
        Assert.Equal([31, 32], run.CrewThreadIds);
        Assert.True(run.IsRunThread(Worker) && run.IsRunThread(31) && run.IsRunThread(32));
        Assert.False(run.IsRunThread(33) || run.IsRunThread(Marker));
        Assert.Equal(6, run.Calls); // 3 operations on each of 2 crew threads

        Start(B, 7.0); // the next run has no crew unless it is named again
        Begin(8.0);
        End(9.0);
        Assert.Empty(_runs[1].CrewThreadIds);
        Assert.Equal(1, _runs[1].Calls);
    }

    [Fact]
    public void MarkerWaitFirstOpensTheRunAndRunBeginMovesItsStart()
    {
        // First run: no RunBegin seen yet in the trace, so the wait opens a chargeable window at once.
        Start(A, 1.0);
        Wait(1.5);
        Assert.False(_w.AwaitingBegin);
        Begin(2.0);
        End(5.0);
        _w.WaitStop(Marker, 5.25);
        Stop(A, 6.0, 3.0);
        // Second run: the trace has RunBegin, so between the wait and RunBegin the worker is still handshaking.
        var a1 = A with { Run = 1 };
        Start(a1, 7.0);
        Wait(7.5);
        Assert.True(_w.AwaitingBegin);
        Assert.Null(_w.ChargeableFor(Worker));
        Begin(8.0);
        Assert.NotNull(_w.ChargeableFor(Worker));
        End(9.0);
        _w.WaitStop(Marker, 9.5);
        Stop(a1, 10.0, 1.0);

        Assert.Equal(2, _runs.Count);
        Assert.Equal((2.0, 5.0, 1.5, 5.25, WindowSource.MarkerWait), (_runs[0].StartMs, _runs[0].EndMs, _runs[0].MarkerWaitStartMs, _runs[0].MarkerWaitEndMs, _runs[0].Source));
        Assert.Equal((8.0, 9.0, 7.5, 9.5), (_runs[1].StartMs, _runs[1].EndMs, _runs[1].MarkerWaitStartMs, _runs[1].MarkerWaitEndMs));
        Assert.Equal(3.75, _runs[0].MarkerWaitMs);
        Assert.True(_w.SawWaits);
    }

    [Fact]
    public void Without_stacks_an_idle_wait_after_RunStart_is_not_taken_for_the_runs_wait()
    {
        Start(A, 1.0);
        Wait(1.5);
        Begin(2.0);
        End(5.0);
        _w.WaitStop(Marker, 5.25);
        Stop(A, 6.0, 3.0);
        // A main trace without stacks: the marker, preempted before its idle wait, blocks in it after RunStart. The
        // worker's Begin wakes it (that wait ends before RunBegin), then it waits for the run.
        var a1 = A with { Run = 1 };
        Start(a1, 7.0);
        _w.WaitStart(Marker, 7.2, markerMethod: null, stackKnown: false);
        _w.WaitStop(Marker, 7.4);
        Assert.False(_runs[1].Closed);
        _w.WaitStart(Marker, 7.5, markerMethod: null, stackKnown: false);
        Begin(8.0);
        End(9.0);
        _w.WaitStop(Marker, 9.5);
        Stop(a1, 10.0, 1.0);
        Assert.Equal((8.0, 9.0, 7.5, 9.5, WindowSource.MarkerWait), (_runs[1].StartMs, _runs[1].EndMs, _runs[1].MarkerWaitStartMs, _runs[1].MarkerWaitEndMs, _runs[1].Source));
    }

    [Fact]
    public void RunBeginBeforeTheMarkersWaitKeepsTheBeginAndTakesTheWait()
    {
        Start(A, 1.0);
        Begin(1.25); // the marker was preempted between arming and blocking
        Wait(1.5);
        End(4.0);
        _w.WaitStop(Marker, 4.5);
        Stop(A, 5.0, 2.75);
        var run = Assert.Single(_runs);
        Assert.Equal((1.25, 4.0, 1.5, 4.5, WindowSource.MarkerWait), (run.StartMs, run.EndMs, run.MarkerWaitStartMs, run.MarkerWaitEndMs, run.Source));
        Assert.False(_w.AwaitingBegin);
    }

    [Fact]
    public void MarkerWaitsAloneAreUnnamedRunsNumberedInOrder()
    {
        Wait(1.0, Other, method: null); // any other thread's wait: not a run
        Wait(2.0, method: "DeserializeDuration");
        Assert.Null(_w.ChargeableFor(Marker)); // the marker's own time is never the run's
        Assert.NotNull(_w.ChargeableFor(Other)); // no worker known: any other thread's events
        _w.WaitStop(Marker, 6.0);
        Wait(7.0, method: "OtherDuration");
        _w.WaitStop(Marker, 8.5);

        Assert.Equal(2, _runs.Count);
        Assert.Equal(new RunKey(Unnamed, "deserialize", 0, 0), _runs[0].Key);
        Assert.Equal(new RunKey(Unnamed, "other", 0, 1), _runs[1].Key);
        Assert.Equal((2.0, 6.0, 0, Marker), (_runs[0].StartMs, _runs[0].EndMs, _runs[0].WorkerThreadId, _runs[0].MarkerThreadId));
        Assert.Equal((7.0, 8.5, 7.0, 8.5), (_runs[1].StartMs, _runs[1].EndMs, _runs[1].MarkerWaitStartMs, _runs[1].MarkerWaitEndMs));
        Assert.Equal(2, _w.Unnamed);
        Assert.False(_w.SawRunEvents);
    }

    [Fact]
    public void MarkersIdleWaitWithAKnownStackIsNotTheRunWait()
    {
        Start(A, 1.0);
        Wait(1.5, method: null); // its stack is known and holds no marker method: the idle wait
        Assert.Empty(_runs);
        _w.WaitStart(Marker, 1.75, null, stackKnown: false); // no stack: the marker's next wait after RunStart is taken
        Assert.Equal(1.75, Assert.Single(_runs).StartMs);
    }

    [Fact]
    public void RunStartAndRunStopAloneBoundAnOldBenchmarksRun()
    {
        Start(A, 1.0, warmup: null);
        Stop(A, 4.5, 3.25);
        var run = Assert.Single(_runs);
        Assert.Equal((1.0, 4.5, 3.25, WindowSource.RunEvents), (run.StartMs, run.EndMs, run.StopwatchMs, run.Source));
        Assert.Null(run.WarmupFromEvents);
        Assert.True(run.Closed);
        Assert.Null(_w.Open);
    }

    [Theory]
    // Reads inside the events' edges [2, 5]: the window is exactly the Stopwatch's.
    [InlineData(2100, 4900, true, 2.1, 4.9)]
    // Exactly on the edges, and within the slack (0.01 ms) past them.
    [InlineData(2000, 5000, true, 2.0, 5.0)]
    [InlineData(1995, 5005, true, 1.995, 5.005)]
    // Past the slack, or reads in the wrong order: another clock, the events' edges stay.
    [InlineData(2100, 5020, false, 2.0, 5.0)]
    [InlineData(1980, 4900, false, 2.0, 5.0)]
    [InlineData(4000, 3000, false, 2.0, 5.0)]
    public void StopwatchReadsPinTheWindowOnlyInsideTheEventsEdges(long startTicks, long stopTicks, bool pinned, double startMs, double endMs)
    {
        Start(A, 1.0);
        Begin(2.0);
        End(5.0, reads: (startTicks, stopTicks));
        var run = Assert.Single(_runs);
        Assert.Equal(pinned, run.PinnedToStopwatch);
        Assert.Equal(startMs, run.StartMs, 9);
        Assert.Equal(endMs, run.EndMs, 9);
        Assert.Equal(pinned ? (2.0, 5.0) : null, run.EventEdgesMs);
    }

    [Fact]
    public void WithoutReadsOrWithoutRunBeginNothingIsPinned()
    {
        Start(A, 1.0);
        Begin(2.0);
        End(5.0); // RunEnd version 0
        Assert.False(_runs[0].PinnedToStopwatch);

        // A wait-opened run whose RunBegin never came: no clock to place the reads from.
        var fresh = new List<RunDraft>();
        var w = new RunWindows(fresh, _ => true, Unnamed);
        w.RunStart(new RunStarted(A, "", Marker, Worker, 1.0, false, 1));
        w.WaitStart(Marker, 1.5, "SerializeDuration", stackKnown: true);
        w.RunEnd(Worker, At(5.0), (2100, 4900));
        Assert.Equal((1.5, 5.0, false), (fresh[0].StartMs, fresh[0].EndMs, fresh[0].PinnedToStopwatch));
    }

    [Fact]
    public void RunStopWithAnotherKeyClosesNothingAndSetsNoStopwatch()
    {
        Start(A, 1.0);
        Begin(2.0);
        End(5.0);
        Stop(A with { Run = 7 }, 6.0, 3.0);
        var run = Assert.Single(_runs);
        Assert.Null(run.StopwatchMs);
        Assert.Same(run, _w.Open); // still the open (closed) run: only its own RunStop lets it go

        // A pending run whose RunStop does not match is forgotten, not opened.
        Start(B, 7.0);
        Stop(B with { Objects = 1 }, 8.0, 1.0);
        Begin(7.5);
        Assert.Single(_runs);
    }

    [Fact]
    public void TwoMarkersInterleavedKeepTheirNamesAndWaitsApart()
    {
        Start(A, 1.0, Marker, Worker);
        Start(B, 1.5, Marker2, Worker2);
        Wait(2.0, Marker2, "DeserializeDuration");
        Begin(2.5, Worker2);
        End(4.0, Worker2);
        _w.WaitStop(Marker2, 4.25);
        _w.WaitStop(Marker, 4.3); // not the open run's marker: ignored
        Stop(B, 4.5, 1.5, Marker2);
        Wait(5.0, Marker);
        Begin(5.5, Worker);
        End(7.0, Worker);
        _w.WaitStop(Marker, 7.25);
        Stop(A, 7.5, 1.5, Marker);

        Assert.Equal(2, _runs.Count);
        var (b, a) = (_runs[0], _runs[1]);
        Assert.Equal((B, Marker2, Worker2, 2.5, 4.0, 2.0, 4.25, 1.5), (b.Key, b.MarkerThreadId, b.WorkerThreadId, b.StartMs, b.EndMs, b.MarkerWaitStartMs!.Value, b.MarkerWaitEndMs!.Value, b.StopwatchMs!.Value));
        Assert.Equal((A, Marker, Worker, 5.5, 7.0, 5.0, 7.25, 1.5), (a.Key, a.MarkerThreadId, a.WorkerThreadId, a.StartMs, a.EndMs, a.MarkerWaitStartMs!.Value, a.MarkerWaitEndMs!.Value, a.StopwatchMs!.Value));
    }

    [Fact]
    public void ANewWindowClosesAStaleOneAtItsStart()
    {
        Start(A, 1.0, Marker, Worker);
        Start(B, 1.5, Marker2, Worker2);
        Begin(2.0, Worker);
        Begin(3.0, Worker2); // A's RunEnd was lost
        Assert.Equal((2.0, 3.0, true), (_runs[0].StartMs, _runs[0].EndMs, _runs[0].Closed));
        Assert.Equal(B, _w.Open!.Key);
    }

    [Fact]
    public void ContextSwitchWaitsJoinTheirRunOrAreTheLateWindow()
    {
        // With RunBegin/RunEnd: the wait that spans RunEnd is the run's; one that does not is another's.
        Start(A, 1.0);
        Begin(2.0);
        End(5.0);
        _w.MarkerWait(new MarkerWait(Marker, 6.0, 7.0));
        Assert.Null(_runs[0].MarkerWaitStartMs);
        _w.MarkerWait(new MarkerWait(Marker, 1.5, 5.5));
        Assert.Equal((1.5, 5.5, WindowSource.MarkerWait, 2.0, 5.0), (_runs[0].MarkerWaitStartMs!.Value, _runs[0].MarkerWaitEndMs!.Value, _runs[0].Source, _runs[0].StartMs, _runs[0].EndMs));
        Stop(A, 6.0, 3.0);

        // Without them: the wait is the window, found after the fact.
        var a1 = A with { Run = 1 };
        Start(a1, 10.0);
        _w.MarkerWait(new MarkerWait(Marker, 10.5, 14.0));
        Stop(a1, 14.5, 3.5);
        Assert.Equal((10.5, 14.0, 10.5, 14.0, 3.5), (_runs[1].StartMs, _runs[1].EndMs, _runs[1].MarkerWaitStartMs!.Value, _runs[1].MarkerWaitEndMs!.Value, _runs[1].StopwatchMs!.Value));
        Assert.Equal(1, _w.LateWindows);
        Assert.True(_w.SawWaits);
    }

    [Fact]
    public void UnwantedRunsAreTrackedButNotKept()
    {
        var f = new RunKey("Filtered", "serialize", 1, 0);
        Start(f, 1.0);
        Begin(2.0);
        Assert.Empty(_runs);
        Assert.Null(_w.ChargeableFor(Worker));
        End(3.0);
        Stop(f, 4.0, 1.0);
        Assert.Null(_w.Open);
        Assert.Empty(_w.BegunBeforeTrace); // left out by --serializers, not by an attach mid-run
        Stop(A, 5.0, 1.0);
        Assert.Equal([A], _w.BegunBeforeTrace);
    }

    [Fact]
    public void AnUnendedRunIsDroppedAtTheEnd()
    {
        Start(A, 1.0);
        Begin(2.0);
        Assert.Same(_runs[0], _w.DropUnended());
        Assert.Empty(_runs);
        Assert.Null(_w.Open);
        Assert.Null(_w.DropUnended());
    }

    [Fact]
    public void HarnessIterationsOpenOnTheirThreadAndCloseOnlyThere()
    {
        var key = new RunKey("Bench.Method", "benchmark", 0, 0);
        var run = _w.HarnessIterationStart(new RunStarted(key, "", 0, Worker, 1.0, true, 16));
        Assert.Same(run, _w.ChargeableFor(Worker));
        Assert.False(_w.HarnessIterationStop(Worker2, 2.0));
        Assert.True(_w.HarnessIterationStop(Worker, 3.5));
        Assert.False(_w.HarnessIterationStop(Worker, 4.0)); // already closed
        Assert.Equal((1.0, 3.5, WindowSource.HarnessEvents, 16L, (bool?)true, 0), (run.StartMs, run.EndMs, run.Source, run.Operations, run.WarmupFromEvents, run.MarkerThreadId));

        // The benchmark's own run is never closed by a harness stop.
        Start(A, 5.0);
        Begin(6.0);
        Assert.False(_w.HarnessIterationStop(Worker, 7.0));
        Assert.False(_runs[1].Closed);
    }

    private double Settled(double nowMs) => _w.SettledBeforeMs(nowMs) + StopwatchPin.SlackMs;

    [Fact]
    public void Windows_settle_when_their_run_closes_and_a_pending_or_open_run_holds_the_settled_time_back()
    {
        Assert.Equal(3.0, Settled(3.0));            // no run: everything before now is settled
        Start(A, 4.0);
        Assert.Equal(4.0, Settled(4.5));            // a RunStart can open a window from its own time on (RunStop alone)
        Wait(5.0);
        Assert.Equal(5.0, Settled(5.5));            // the open run starts at the wait
        Begin(6.0);
        Assert.Equal(6.0, Settled(7.0));            // RunBegin moved its start; the Stopwatch pin starts no earlier
        End(9.0, reads: (6_500, 8_500));
        Assert.Equal((6.5, 8.5), (_runs[0].StartMs, _runs[0].EndMs));
        Assert.Equal(9.5, Settled(9.5));            // closed: final
        Start(B, 10.0);
        Wait(11.0);
        Assert.Equal(6.0, Settled(11.5));           // opened by its wait, before its RunBegin: the last RunBegin's time bounds the pin
        Begin(12.0);
        Assert.Equal(12.0, Settled(12.5));
    }

    [Fact]
    public void A_window_found_after_the_fact_from_RunStart_and_RunStop_was_held_back_by_its_pending_RunStart()
    {
        Start(A, 1.0);
        Assert.Equal(1.0, Settled(8.0));
        Stop(A, 9.0, 7.5);                          // no RunBegin, no wait: the window is RunStart..RunStop, in the past
        Assert.Equal((1.0, 9.0), (_runs[0].StartMs, _runs[0].EndMs));
        Assert.Equal(9.5, Settled(9.5));
    }
}
