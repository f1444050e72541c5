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
    /// <summary>Thread 1: in 10, out 20, in 30, out 40, in 50 (running to the end); thread 2: running until 5, in 25, out 35.</summary>
    private static readonly (long AtMs, int Thread)[] s_ins = [(10, 1), (25, 2), (30, 1), (50, 1)];
    private static readonly (long AtMs, int Thread)[] s_outs = [(5, 2), (20, 1), (35, 2), (40, 1)];

    private static readonly SwitchCpuTime.Window[] s_windows =
    [
        new(1, 0, 100),  // 10-20, 30-40, 50-100
        new(1, 15, 35),  // 15-20, 30-35
        new(1, 20, 30),  // from the switch-out at 20 to the switch-in at 30: off throughout
        new(1, 30, 40),  // from the switch-in at 30 to the switch-out at 40: on throughout
        new(2, 0, 100),  // 0-5 (running before its first switch, a switch-out), 25-35
        new(2, 0, 3),
        new(1, 60, 60),  // empty
        new(1, 70, 65),  // backwards
        new(3, 0, 100),  // a thread without switches
    ];

    private static readonly double[] s_answers = [70, 10, 0, 10, 15, 3, 0, 0, 0];

    [Fact]
    public void Windows_asked_together_get_the_answers_each_gets_alone_in_one_walk()
    {
        var time = Of(s_ins, s_outs);
        Assert.Equal(s_answers, time.OnCpuMs(s_windows));
        Assert.Equal(s_answers, s_windows.Select(w => time.OnCpuMs(w.ThreadId, w.FromMs, w.ToMs)));
        // Overlapping windows of one thread, asked in any order.
        Assert.Equal(s_answers.Reverse(), time.OnCpuMs([.. s_windows.Reverse()]));
    }

    [Fact]
    public void Records_out_of_time_order_are_put_in_order_first_and_give_the_same_answers()
    {
        // A damaged file's order (perf writes in time order): the walk needs time order, so it sorts a copy.
        var time = Of(s_ins.Reverse(), s_outs.Reverse());
        Assert.Equal(s_answers, time.OnCpuMs(s_windows));
        Assert.Equal(s_answers, Of(s_ins, s_outs.Reverse()).OnCpuMs(s_windows));
    }

    [Fact]
    public void A_long_run_far_out_of_order_gives_the_answers_of_the_same_run_in_order()
    {
        // Nearly ordered records are sorted by insertion; this many reversed ones are past its budget and sorted whole.
        var ins = Enumerable.Range(0, 300).Select(i => ((long)(3 * i), 1 + i % 3)).ToList();
        var outs = Enumerable.Range(0, 300).Select(i => ((long)(3 * i + 1 + i % 2), 1 + i % 3)).ToList();
        SwitchCpuTime.Window[] windows = [new(1, 0, 900), new(2, 100, 500), new(3, 447.5, 448.5)];
        var ordered = Of(ins, outs).OnCpuMs(windows);
        Assert.Equal(ordered, Of(Enumerable.Reverse(ins), Enumerable.Reverse(outs)).OnCpuMs(windows));
        Assert.Equal([150.0, 67.0, 1.0], ordered);
    }

    [Fact]
    public void Windows_asked_up_front_get_the_same_answers_from_the_switches_fed_one_chunk_at_a_time()
    {
        // A long trace is read in chunks (KernelChunks): here every record is a chunk of its own, so each window's
        // state, and a thread's first switch deciding windows already over (thread 2's 0-3), cross chunk edges.
        var walk = new SwitchCpuTime.Walk(Clock(), s_windows);
        var records = s_ins.Select(r => (r.AtMs, r.Thread, In: true)).Concat(s_outs.Select(r => (r.AtMs, r.Thread, In: false))).OrderBy(r => r.AtMs);
        foreach (var (at, thread, isIn) in records)
        {
            var chunk = new KernelTrace();
            if (isIn) chunk.SwitchIns.Add((at * Ms, thread));
            else chunk.SwitchOuts.Add(new KernelSwitchOut(at * Ms, thread, 'S', 0, KernelTrace.NoStack));
            walk.Add(chunk);
        }
        Assert.Equal(s_answers, walk.Finish());
        Assert.True(walk.SawSwitchIns);
        Assert.Equal(0, walk.LateRecords);
        // A thread's whole trace, kept as sums as the switches pass, is the walk of its window once that is known.
        var whole = Of(s_ins, s_outs);
        foreach (var (thread, first, last) in new[] { (1, 12.0, 95.0), (2, 1.0, 30.0), (2, 7.0, 8.0) })
        {
            var window = new SwitchCpuTime.Window(thread, Math.Min(thread == 1 ? 10 : 5, first - 1), Math.Max(thread == 1 ? 50 : 35, last));
            Assert.Equal(whole.OnCpuMs([window])[0], walk.WholeThreadMs(thread, first, last, periodMs: 1)!.Value, 9);
        }
        Assert.Null(walk.WholeThreadMs(3, 0, 1, 1));
    }

    private static KernelClock Clock()
    {
        var clock = new KernelClock();
        clock.Observe(0, 0);
        clock.Observe(1000 * Ms, 1000);
        return clock;
    }
}
