using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Tests.Analyzer.Kernel;

/// <summary>
/// Switch-ins credited back to the pick perf recorded (<see cref="SwitchInCredit"/>), read from `perf script` lines
/// shaped as the recorder stores them: the kernel charges the switch to the incoming thread, before its IN record.
/// </summary>
public sealed class SwitchInCreditTests
{
    private const string Script = """
                  dotnet 100/101   0.010000000: sched:sched_switch: prev_comm=w prev_pid=101 prev_prio=120 prev_state=R ==> next_comm=w next_pid=102 next_prio=120
                  dotnet 100/101   0.010004000: PERF_RECORD_SWITCH OUT
                  dotnet 100/102   0.010020000: PERF_RECORD_SWITCH IN
                  dotnet 100/102   0.012000000: sched:sched_switch: prev_comm=w prev_pid=102 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
                  dotnet 100/102   0.012003000: PERF_RECORD_SWITCH OUT
                  dotnet 100/102   0.014000000: PERF_RECORD_SWITCH IN
                  dotnet 100/101   0.015000000: sched:sched_switch: prev_comm=w prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=w next_pid=103 next_prio=120
                  dotnet 100/101   0.015005000: PERF_RECORD_SWITCH OUT
                  dotnet 100/103   0.020000000: PERF_RECORD_SWITCH IN
                  dotnet 100/103   0.021000000: sched:sched_switch: prev_comm=w prev_pid=103 prev_prio=120 prev_state=S ==> next_comm=w next_pid=104 next_prio=120
                  dotnet 100/104   0.021015000: PERF_RECORD_SWITCH IN

        """;

    private const long Us = 1000;

    private static KernelTrace Read() =>
        PerfScriptReader.Read(new MemoryStream(System.Text.Encoding.UTF8.GetBytes(Script)), 1.001001, out _);

    [Fact]
    public void A_switch_in_starts_at_the_pick_perf_recorded_or_at_the_outgoing_threads_OUT_record_after_it()
    {
        var trace = Read();
        // The IN records stay as perf wrote them (the marker's waits end there).
        Assert.Equal([(10_020 * Us, 102), (14_000 * Us, 102), (20_000 * Us, 103), (21_015 * Us, 104)], trace.SwitchIns);
        Assert.Equal(
        [
            (10_004 * Us, 102), // picked at 10.000 ms, the CPU 101's until its OUT record at 10.004
            (14_000 * Us, 102), // switched in from another process's thread: no tracepoint, no credit
            (20_000 * Us, 103), // picked 5 ms before (its IN record lost, say): further back than a switch, no credit
            (21_000 * Us, 104), // picked at 21.000 ms, the outgoing thread's OUT record missing: from the tracepoint
        ], trace.OnCpuFrom);
        Assert.Same(trace.OnCpuFrom, trace.OnCpuStarts);
    }

    [Fact]
    public void The_credit_counts_one_CPU_once_and_moves_the_on_CPU_time_by_the_switch()
    {
        var time = new SwitchCpuTime(Read(), Clock());
        // 102 from its credited pick (10.004) to its OUT record (12.003), not from its IN record (10.020).
        Assert.Equal(12.003 - 10.004, time.OnCpuMs(102, 9, 13), 9);
        // 101 (running from before, to its OUT record) and 102 hand one CPU over: together exactly the window.
        Assert.Equal(12.003 - 9, time.OnCpuMs(101, 9, 12.003) + time.OnCpuMs(102, 9, 12.003), 9);
    }

    [Fact]
    public void The_credit_is_the_same_however_the_records_are_cut_into_chunks()
    {
        // Two records a chunk: the pick and the OUT record in one, the IN record starts the next, and its credited
        // start goes back before the chunk.
        var chunks = new List<KernelTrace>();
        PerfScriptReader.ReadChunks(new MemoryStream(System.Text.Encoding.UTF8.GetBytes(Script)), 1.001001, 2, chunks.Add);
        Assert.Equal(Read().OnCpuFrom, chunks.SelectMany(c => c.OnCpuFrom));
        var windows = new SwitchCpuTime.Window[] { new(101, 9, 10.002), new(102, 9, 10.010), new(102, 9, 13), new(101, 9, 12.003) };
        var walk = new SwitchCpuTime.Walk(Clock(), windows);
        foreach (var c in chunks) walk.Add(c);
        var chunked = walk.Finish();
        Assert.Equal(new SwitchCpuTime(Read(), Clock()).OnCpuMs(windows), chunked);
        Assert.Equal([1.002, 0.006, 1.999, 1.004], chunked.Select(ms => Math.Round(ms, 9)));
        Assert.Equal(0, walk.LateRecords);
    }

    private static KernelClock Clock()
    {
        var clock = new KernelClock();
        clock.Observe(0, 0);
        clock.Observe(1000 * 1_000_000L, 1000);
        return clock;
    }
}
