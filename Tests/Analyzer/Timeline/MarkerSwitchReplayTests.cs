using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Tests.Analyzer.Timeline;

/// <summary>
/// The kernel session's marker waits: the pass's run marks replayed into the detector, merged with the marker's
/// switch records in time order, on a hand-made run shaped like the benchmark's handshake.
/// </summary>
public sealed class MarkerSwitchReplayTests
{
    private const int Marker = 10, Worker = 20;

    private static PassTimeline Marks(double start)
    {
        var timeline = new PassTimeline();
        timeline.RunMarks.AddRange([
            new RunMark(start, RunMarkKind.Start, Marker, Worker),
            new RunMark(2.05, RunMarkKind.Begin, 0, Worker),
            new RunMark(30.0, RunMarkKind.End, 0, Worker),
            new RunMark(31.0, RunMarkKind.Stop, Marker, Worker)]);
        return timeline;
    }

    [Theory]
    [InlineData(true, 30.01)]
    [InlineData(false, 30.4)]
    public void The_run_wait_ends_at_the_wake_up_when_the_source_records_them_else_at_the_switch_in(bool wakes, double endMs)
    {
        var replay = new MarkerSwitchReplay(Marks(1.0)) { WakesEndWaits = wakes };
        Assert.True(replay.Follows(Marker));
        Assert.False(replay.Follows(Worker));
        replay.SwitchIn(1.5, Marker);                                   // back from the idle wait
        replay.SwitchOut(1.8, Marker, waiting: false, Worker);          // preempted: no wake-up comes
        replay.SwitchIn(1.9, Marker);                                   // so the switch-in ends it
        replay.SwitchOut(2.0, Marker, waiting: true, Worker);           // into the run wait
        if (wakes) replay.Wake(30.01, Marker);                          // released after RunEnd
        replay.SwitchIn(30.4, Marker);
        replay.SwitchOut(30.5, Marker, waiting: true, 0);               // the idle wait again

        var wait = Assert.Single(replay.Finish());
        Assert.Equal(new MarkerWait(Marker, 2.0, endMs), wait);
    }

    [Theory]
    [InlineData(2.0, 1)]  // RunStart at the switch-out's time: the mark comes first, so the wait is the run's
    [InlineData(2.01, 0)] // RunStart after it: the wait began before the run and is not its own
    public void A_run_mark_sorts_before_a_switch_at_the_same_time(double startMs, int waits)
    {
        var replay = new MarkerSwitchReplay(Marks(startMs)) { WakesEndWaits = true };
        replay.SwitchOut(2.0, Marker, waiting: true, Worker);
        replay.Wake(30.01, Marker);
        replay.SwitchIn(30.4, Marker);
        Assert.Equal(waits, replay.Finish().Count);
    }
}
