using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Tests.Analyzer.Timeline;

/// <summary>
/// ETW run windows from the marker thread's context switches, on synthetic sequences shaped like the benchmark's
/// handshake (RunStart, marker wakes from idle, marker waits, RunBegin ... RunEnd, worker releases it, RunStop).
/// </summary>
public sealed class MarkerSwitchDetectorTests
{
    private const int Marker = 10, Worker = 20, Other = 99;

    /// <summary>Feeds a script of steps in time order and collects the waits the detector reports.</summary>
    private sealed class Feed
    {
        public MarkerSwitchDetector Detector { get; } = new();
        public List<MarkerWait> Waits { get; } = [];
        public List<double> RunStarts { get; } = [];

        public Feed Start(double t) { RunStarts.Add(t); Detector.RunStart(t, Marker, Worker); return this; }
        public Feed Begin(double t) { Detector.RunBegin(t, Worker); return this; }
        public Feed End(double t) { Detector.RunEnd(t, Worker); return this; }
        public Feed Stop(double t) { Add(Detector.RunStop(t, Marker)); return this; }
        /// <summary>The marker is switched in (a worker or idle thread was running).</summary>
        public Feed In(double t) { Add(Detector.OnContextSwitch(new ContextSwitch(t, Other, Marker, OldThreadWaiting: true))); return this; }
        /// <summary>The marker blocks in a wait.</summary>
        public Feed Wait(double t) { Add(Detector.OnContextSwitch(new ContextSwitch(t, Marker, Worker, OldThreadWaiting: true))); return this; }
        /// <summary>The marker loses its CPU without waiting.</summary>
        public Feed Preempt(double t) { Add(Detector.OnContextSwitch(new ContextSwitch(t, Marker, Other, OldThreadWaiting: false))); return this; }
        public Feed Noise(double t) { Add(Detector.OnContextSwitch(new ContextSwitch(t, Other, Worker, OldThreadWaiting: true))); return this; }

        /// <summary>One complete run as the benchmark produces it, with the run wait from wait to release.</summary>
        public Feed Run(double t0, double wait, double release) =>
            Start(t0).In(t0 + 0.1).Wait(wait).Begin(wait + 0.05).Noise(wait + 1).End(release - 0.1).In(release).Wait(release + 0.1).Stop(release + 0.2);

        private void Add(MarkerWait? w) { if (w is { } x) Waits.Add(x); }
    }

    [Fact]
    public void The_run_wait_goes_from_the_switch_out_after_arming_to_the_switch_in_after_RunEnd()
    {
        var f = new Feed().Run(0, wait: 2, release: 50);
        Assert.Equal([new MarkerWait(Marker, 2, 50)], f.Waits);
        Assert.Equal(0, f.Detector.RunsWithoutWait);
        Assert.Equal(0, f.Detector.LostSwitches);
    }

    [Fact]
    public void Consecutive_runs_pair_start_and_stop_and_never_overlap()
    {
        var f = new Feed();
        for (var i = 0; i < 5; i++) f.Run(i * 100, i * 100 + 2, i * 100 + 40 + i);
        Assert.Equal(5, f.Waits.Count);
        for (var i = 0; i < 5; i++)
        {
            Assert.True(f.Waits[i].StartMs >= f.RunStarts[i]);
            if (i > 0) Assert.True(f.Waits[i].StartMs > f.Waits[i - 1].EndMs);
        }
        Assert.Equal(Enumerable.Range(0, 5).Select(i => i * 100 + 2.0), f.Waits.Select(w => w.StartMs));
    }

    [Fact]
    public void Idle_and_gc_waits_before_the_measured_part_and_preemptions_are_not_the_run_wait()
    {
        var f = new Feed()
            .Start(0).In(0.1)          // woken from the idle wait
            .Wait(0.2).In(0.4)         // blocked on a GC suspension before arming
            .Preempt(0.5).In(0.6)      // preempted between arming and blocking
            .Wait(1).Begin(1.05).End(30).In(30.2).Wait(30.3).Stop(30.4);
        Assert.Equal([new MarkerWait(Marker, 1, 30.2)], f.Waits);
        Assert.Equal(0, f.Detector.LostSwitches);
    }

    [Fact]
    public void A_marker_that_never_blocked_gives_the_run_no_wait_instead_of_a_later_one()
    {
        // Preempted after arming, the worker finished and released it before it blocked: no wait spans RunEnd.
        var f = new Feed().Start(0).In(0.1).Preempt(0.2).Begin(0.3).End(0.5).In(0.6).Wait(0.7).In(0.9).Stop(1.0);
        Assert.Empty(f.Waits);
        Assert.Equal(1, f.Detector.RunsWithoutWait);
    }

    [Fact]
    public void Without_RunBegin_and_RunEnd_the_last_complete_wait_before_RunStop_is_the_run_wait()
    {
        // Includes the first-run race: the marker reached its idle wait only after RunStart.
        var f = new Feed().Start(0).Wait(0.05).In(0.1).Wait(2).In(50).Wait(50.1).Stop(50.2);
        Assert.Equal([new MarkerWait(Marker, 2, 50)], f.Waits);
    }

    [Fact]
    public void A_lost_switch_out_leaves_the_run_without_a_wait_and_is_counted()
    {
        var f = new Feed().Start(0).In(0.1) /* run wait's switch-out lost */ .Begin(2.1).End(49).In(50).Wait(50.1).Stop(50.2);
        Assert.Empty(f.Waits);
        Assert.Equal(1, f.Detector.LostSwitches);
        Assert.Equal(1, f.Detector.RunsWithoutWait);
    }

    [Fact]
    public void A_lost_switch_in_is_counted_and_the_next_run_is_found_again()
    {
        var f = new Feed().Start(0).In(0.1).Wait(2).Begin(2.1).End(49) /* release switch-in lost */ .Wait(50.1).Stop(50.2);
        f.Run(100, 102, 140);
        Assert.Equal([new MarkerWait(Marker, 102, 140)], f.Waits);
        Assert.Equal(1, f.Detector.LostSwitches);
        Assert.Equal(1, f.Detector.RunsWithoutWait);
    }

    [Fact]
    public void A_wait_spanning_two_RunStarts_is_never_reported()
    {
        // RunStop of the first run was lost and the marker's switch-in came only after the next RunStart.
        var f = new Feed().Start(0).In(0.1).Wait(2) /* RunStop lost */ .Start(60).In(61).Wait(62).In(90).Wait(90.1).Stop(90.2);
        Assert.Equal([new MarkerWait(Marker, 62, 90)], f.Waits);
        Assert.All(f.Waits, w => Assert.DoesNotContain(f.RunStarts, s => w.StartMs < s && s < w.EndMs));
        Assert.Equal(1, f.Detector.RunsWithoutWait);
    }

    [Fact]
    public void Switches_of_other_threads_and_stray_RunStops_are_ignored()
    {
        var d = new MarkerSwitchDetector();
        Assert.Null(d.RunStop(1, Marker));
        Assert.Null(d.OnContextSwitch(new ContextSwitch(2, Other, Worker, true)));
        Assert.Null(d.OnContextSwitch(new ContextSwitch(3, Worker, Other, true)));
        Assert.Equal(0, d.LostSwitches);
        Assert.Equal(0, d.RunsWithoutWait);
    }
}
