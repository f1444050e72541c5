using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Tests.Analyzer.Kernel;

/// <summary>A thread's on-CPU time from hand-made switch records (times in ms on a clock whose origin is 0 ns).</summary>
public sealed class SwitchCpuTimeTests
{
    private const long Ms = 1_000_000;

    private static SwitchCpuTime Of(IEnumerable<(long AtMs, int Thread)> ins, IEnumerable<(long AtMs, int Thread)> outs, IEnumerable<(long AtMs, int Thread)>? outRecords = null)
    {
        var trace = new KernelTrace();
        foreach (var (at, thread) in ins) trace.SwitchIns.Add((at * Ms, thread));
        foreach (var (at, thread) in outs) trace.SwitchOuts.Add(new KernelSwitchOut(at * Ms, thread, 'S', 0, KernelTrace.NoStack));
        foreach (var (at, thread) in outRecords ?? []) trace.SwitchOutRecords.Add((at * Ms, thread));
        var clock = new KernelClock();
        clock.Observe(0, 0);
        clock.Observe(1000 * Ms, 1000);
        return new SwitchCpuTime(trace, clock);
    }

    [Fact]
    public void On_cpu_time_is_the_sum_of_the_stretches_between_switch_in_and_switch_out_clipped_to_the_window()
    {
        // Records come unordered and per kind, as the reader lists them; thread 2's must not count for thread 1.
        var time = Of(ins: [(30, 1), (10, 1), (12, 2)], outs: [(20, 1), (40, 1), (15, 2)]);
        Assert.Equal(20, time.OnCpuMs(1, 0, 100), 9);   // 10-20 and 30-40
        Assert.Equal(10, time.OnCpuMs(1, 15, 35), 9);   // 15-20 and 30-35
        Assert.Equal(0, time.OnCpuMs(1, 21, 29), 9);    // switched out throughout
        Assert.Equal(3, time.OnCpuMs(2, 0, 100), 9);
        Assert.Equal(0, time.OnCpuMs(3, 0, 100), 9);
        Assert.False(time.Knows(3));
    }

    [Fact]
    public void A_thread_first_seen_switching_out_was_running_before_and_one_never_switched_out_runs_to_the_end()
    {
        var time = Of(ins: [(50, 1)], outs: [(20, 1)]);
        Assert.Equal(20 + 30, time.OnCpuMs(1, 0, 80), 9);
        // Over the whole trace: from a period before its first sample (5 - 1 ms) to its last record or sample.
        Assert.Equal((20 - 4) + (90 - 50), time.ThreadOnCpuMs(1, firstSampleMs: 5, lastSampleMs: 90, periodMs: 1)!.Value, 9);
        Assert.Null(time.ThreadOnCpuMs(7, 0, 1, 1));
    }

    [Fact]
    public void At_equal_times_a_switch_in_comes_before_a_switch_out()
    {
        // In at 10, out at 10 (a zero-length stretch), in again at 20: the thread was not running between 10 and 20.
        var time = Of(ins: [(10, 1), (20, 1)], outs: [(10, 1)]);
        Assert.Equal(0, time.OnCpuMs(1, 11, 19), 9);
        Assert.Equal(5, time.OnCpuMs(1, 11, 25), 9);
    }

    [Fact]
    public void Perfs_out_records_end_the_stretches_when_the_recording_has_them_and_the_tracepoint_otherwise()
    {
        // The tracepoint fires before the switch, perf's OUT record after it, as its IN record does: stretches from
        // IN to OUT record (10-21, 30-41) keep the hand-over's cost on both edges, so the precise figure has no
        // per-switch bias (docs/analyzer.md#accuracy-against-independent-truth).
        var ins = new[] { (10L, 1), (30L, 1) };
        var outs = new[] { (20L, 1), (40L, 1) };
        Assert.Equal(22, Of(ins, outs, outRecords: [(21, 1), (41, 1)]).OnCpuMs(1, 0, 100), 9);
        Assert.Equal(20, Of(ins, outs).OnCpuMs(1, 0, 100), 9);
    }
}
