using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Timeline;
using EtwSerializerProfiler.Common;
using static EtwSerializerProfiler.Tests.Analyzer.Processing.Collectors.CollectorInputs;

namespace EtwSerializerProfiler.Tests.Analyzer.Gc;

/// <summary>GCs counted into runs as the pass goes, on hand-made GCs and windows with exact answers.</summary>
public sealed class RunGcsTests
{
    [Fact]
    public void A_gc_is_the_runs_whose_window_holds_its_start_edges_included()
    {
        RunDraft[] runs = [Run(10, 20, run: 1), Run(30, 40, run: 2)];
        var gcs = new RunGcs();
        foreach (var (ms, generation) in new[]
        {
            (9.999, 0),    // just before the first window
            (10, 0),       // at its start
            (15, 1),
            (20, 2),       // at its end
            (20.001, 0),   // just after: between the runs
            (35, 2),
            (40.5, 0),     // after the last
        })
            gcs.Collection(ms, generation);
        gcs.Settle(double.PositiveInfinity, runs);
        Assert.Equal(new GcCounts(1, 1, 1), runs[0].Freeze().GcCount);
        Assert.Equal(new GcCounts(0, 0, 1), runs[1].Freeze().GcCount);
        Assert.Equal(0, gcs.WaitingCount);
    }

    [Fact]
    public void Pauses_and_their_parts_are_clipped_to_each_window_and_one_across_two_runs_counts_in_both()
    {
        RunDraft[] runs = [Run(10, 20, run: 1), Run(30, 40, run: 2)];
        var gcs = new RunGcs();
        gcs.Paused(new GcPause(new(9, 11), Suspending: new(9, 9.5), Restarting: new(10.75, 11)));
        gcs.Paused(new GcPause(new(19.5, 30.5), Suspending: null, Restarting: new(30, 30.5)));
        gcs.Paused(new GcPause(new(25, 26), new(25, 25.5), new(25.5, 26)));   // between the runs
        gcs.Paused(new GcPause(new(35, 36), new(35, 35.25), null));
        gcs.Paused(new GcPause(new(40, 41), new(40, 40.5), new(40.5, 41)));   // touches the second's end only
        gcs.Settle(double.PositiveInfinity, runs);
        Assert.Equal((1 + 0.5, 0.0, 0.25), (runs[0].GcPauseMs, runs[0].GcSuspendMs, runs[0].GcRestartMs));
        Assert.Equal((0.5 + 1, 0.25, 0.5), (runs[1].GcPauseMs, runs[1].GcSuspendMs, runs[1].GcRestartMs));
    }

    [Fact]
    public void What_ends_at_or_after_the_settled_time_waits_and_is_counted_in_a_later_settle_as_if_counted_at_once()
    {
        var settledAtOnce = new[] { Run(10, 20, run: 1) };
        var stepByStep = new[] { Run(10, 20, run: 1) };
        var once = new RunGcs();
        var steps = new RunGcs();
        foreach (var gcs in new[] { once, steps })
        {
            gcs.Collection(12, 0);
            gcs.Paused(new GcPause(new(12, 14), new(12, 12.5), new(13.5, 14)));
            gcs.Collection(18, 1);
            gcs.Paused(new GcPause(new(18, 21), new(18, 19), new(20, 21)));
        }
        once.Settle(double.PositiveInfinity, settledAtOnce);

        steps.Settle(14, stepByStep);      // the first GC's pause ends at 14: not before it
        Assert.Equal(new GcCounts(1, 0, 0), stepByStep[0].Freeze().GcCount);
        Assert.Equal((0.0, 0.5, 0.0), (stepByStep[0].GcPauseMs, stepByStep[0].GcSuspendMs, stepByStep[0].GcRestartMs));
        Assert.Equal(2 + 1 + 3, steps.WaitingCount); // the pause and its restarting part end at 14; the second GC
        steps.Settle(19.5, stepByStep);
        steps.Settle(double.PositiveInfinity, stepByStep);

        Assert.Equal(0, steps.WaitingCount);
        Assert.Equal(settledAtOnce[0].Freeze().GcCount, stepByStep[0].Freeze().GcCount);
        Assert.Equal((settledAtOnce[0].GcPauseMs, settledAtOnce[0].GcSuspendMs, settledAtOnce[0].GcRestartMs),
            (stepByStep[0].GcPauseMs, stepByStep[0].GcSuspendMs, stepByStep[0].GcRestartMs));
        Assert.Equal((2 + 2, 0.5 + 1, 0.5 + 0), (stepByStep[0].GcPauseMs, stepByStep[0].GcSuspendMs, stepByStep[0].GcRestartMs));
    }

    [Fact]
    public void Another_process_gcs_are_let_go_with_no_runs_and_settling_is_tried_again_only_after_more_wait()
    {
        var gcs = new RunGcs();
        for (var i = 0; i < RunGcs.SettleEvery - 1; i++) gcs.Collection(i, 0);
        Assert.False(gcs.ShouldSettle);
        gcs.Collection(RunGcs.SettleEvery, 0);
        Assert.True(gcs.ShouldSettle);
        gcs.Settle(10.5, []);                 // 0..10 go (no run holds them), the rest wait
        Assert.Equal(RunGcs.SettleEvery - 11, gcs.WaitingCount);
        Assert.False(gcs.ShouldSettle);       // the next try waits for another SettleEvery
        gcs.Settle(double.PositiveInfinity, []);
        Assert.Equal(0, gcs.WaitingCount);
    }
}
