using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.RunMarkers;

namespace EtwSerializerProfiler.Tests.RunMarkers;

/// <summary>
/// MarkedRuns, the API an app marks its own runs with: what it writes to the trace (the events the analyzer reads, in
/// the analyzer's order, numbered per case, operation and N) and what it measures in-process (the truth a trace's
/// analysis is checked against). Each test uses case names of its own: the numbering is per process.
/// </summary>
public sealed class MarkedRunsTests
{
    private static string NewCase() => "case-" + Guid.NewGuid().ToString("N")[..8];

    [Fact]
    public void Runs_are_numbered_per_case_operation_and_n_and_carry_warmup_and_operations()
    {
        using var log = new RunEventLog();
        var name = NewCase();
        MarkedRuns.Measure(name, "serialize", 10, () => { }, warmup: true);
        MarkedRuns.Measure(name, "serialize", 10, () => { }, operations: 4);
        MarkedRuns.Measure(name, "serialize", 20, () => { });
        var last = MarkedRuns.Measure(name, "serialize", 10, () => { }, data: "Orders");

        Assert.Equal(2, last.Run);
        var starts = log.StartStop(name).Where(e => e.Name == RunEvents.RunStartName).ToList();
        Assert.Equal([(10, 0, true, 1, ""), (10, 1, false, 4, ""), (20, 0, false, 1, ""), (10, 2, false, 1, "Orders")],
            starts.Select(e => ((int)e.Payload[RunEvents.Fields.Objects]!, e.Run, (bool)e.Payload[RunEvents.Fields.Warmup]!,
                (int)e.Payload[RunEvents.Fields.Operations]!, (string)e.Payload[RunEvents.Fields.Data]!)));
    }

    [Fact]
    public void Each_run_writes_start_begin_end_stop_on_the_calling_thread_with_its_stopwatch_duration()
    {
        using var log = new RunEventLog();
        var name = NewCase();
        var timing = MarkedRuns.Measure(name, "parse", 0, () => Thread.Sleep(5));

        var entries = log.Entries.ToList();
        var from = entries.FindIndex(e => e.Name == RunEvents.RunStartName && e.Case == name);
        var run = entries.Skip(from).Take(4).ToList();
        Assert.Equal([RunEvents.RunStartName, "RunBegin", "RunEnd", RunEvents.RunStopName], run.Select(e => e.Name));
        Assert.All(run, e => Assert.Equal(Environment.CurrentManagedThreadId, e.ManagedThreadId));
        var stop = run[3].Payload;
        Assert.Equal(timing.DurationMs, (double)stop[RunEvents.Fields.DurationMs]!);
        Assert.Equal(NativeThreadInfo.CurrentOsThreadId(), (int)stop[RunEvents.Fields.WorkerThreadId]!);
        Assert.Equal(timing.Window.WorkerThreadId, (int)stop[RunEvents.Fields.WorkerThreadId]!);
        Assert.Equal(timing.Window.MarkerThreadId, (int)stop[RunEvents.Fields.MarkerThreadId]!);
        Assert.NotEqual(timing.Window.WorkerThreadId, timing.Window.MarkerThreadId);
        Assert.True(timing.DurationMs >= 5 && timing.OuterDurationMs >= timing.DurationMs, $"{timing.DurationMs} / {timing.OuterDurationMs}");
    }

    [Fact]
    public void Cpu_is_the_calling_threads_clock_over_the_window_and_allocations_its_own()
    {
        // Spin until the thread's own clock has advanced 30 ms: the run's CPU is at least that, and never more than
        // the wall time around it (one thread). A sleeping run costs next to no CPU.
        var spin = MarkedRuns.Measure(NewCase(), "spin", 0, () =>
        {
            var until = NativeThreadInfo.CurrentThreadCpuTime() + TimeSpan.FromMilliseconds(30);
            while (NativeThreadInfo.CurrentThreadCpuTime() < until) { }
        });
        Assert.True(spin.CpuMs >= 30 && spin.CpuMs <= spin.OuterDurationMs + 1, $"cpu {spin.CpuMs:F3} ms, window {spin.DurationMs:F3} / {spin.OuterDurationMs:F3} ms");

        var sleep = MarkedRuns.Measure(NewCase(), "sleep", 0, () => Thread.Sleep(50));
        Assert.True(sleep.DurationMs >= 50 && sleep.CpuMs < 20, $"cpu {sleep.CpuMs:F3} ms in {sleep.DurationMs:F3} ms of sleep");

        byte[]? kept = null;
        var alloc = MarkedRuns.Measure(NewCase(), "allocate", 0, () => kept = new byte[1_000_000]);
        GC.KeepAlive(kept);
        Assert.InRange(alloc.AllocatedBytes!.Value, 1_000_000, 1_100_000);
    }

    [Fact]
    public void Start_and_Stop_measure_work_that_is_not_a_lambda_and_Dispose_after_Stop_does_nothing()
    {
        using var log = new RunEventLog();
        var name = NewCase();
        RunTiming timing;
        using (var run = MarkedRuns.Start(name, "deserialize", 3))
        {
            Span<int> values = stackalloc int[3];
            values[0] = 1;
            timing = run.Stop();
            Assert.Equal(timing.DurationMs, run.Timing!.Value.DurationMs);
            Assert.Throws<InvalidOperationException>(() => run.Stop());
        }
        Assert.Equal(2, log.StartStop(name).Count);
    }

    [Fact]
    public void A_run_whose_body_throws_is_closed_and_the_next_one_starts_clean()
    {
        using var log = new RunEventLog();
        var name = NewCase();
        Assert.Throws<FormatException>(() => MarkedRuns.Measure(name, "parse", 0, () => throw new FormatException("bad input")));
        var next = MarkedRuns.Measure(name, "parse", 0, () => { });
        Assert.Equal(1, next.Run);
        Assert.Equal([(RunEvents.RunStartName, 0), (RunEvents.RunStopName, 0), (RunEvents.RunStartName, 1), (RunEvents.RunStopName, 1)],
            log.StartStop(name).Select(e => (e.Name, e.Run)));
    }

    [Fact]
    public void Runs_do_not_nest_and_runs_on_other_threads_wait_so_no_two_windows_overlap()
    {
        using var log = new RunEventLog();
        var name = NewCase();
        using (MarkedRuns.Start(name, "outer", 0))
            Assert.Throws<InvalidOperationException>(() => MarkedRuns.Start(name, "inner", 0));

        var threads = Enumerable.Range(0, 4).Select(_ => new Thread(() =>
        {
            for (var i = 0; i < 10; i++) MarkedRuns.Measure(name, "parallel", 0, () => Thread.SpinWait(1000));
        })).ToList();
        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());

        var runs = log.Entries.Where(e => e.Name is RunEvents.RunStartName or "RunBegin" or "RunEnd" or RunEvents.RunStopName).ToList();
        var parallel = runs.Where(e => e.Case == name && (string)e.Payload[RunEvents.Fields.Operation]! == "parallel").ToList();
        Assert.Equal(80, parallel.Count);
        Assert.Equal(Enumerable.Range(0, 40), parallel.Where(e => e.Name == RunEvents.RunStartName).Select(e => e.Run));
        // One run at a time: every RunStart is followed by its own thread's RunBegin, RunEnd and RunStop.
        var from = runs.IndexOf(parallel[0]);
        var sequence = runs.Skip(from).Take(160).ToList();
        for (var i = 0; i < sequence.Count; i += 4)
        {
            Assert.Equal([RunEvents.RunStartName, "RunBegin", "RunEnd", RunEvents.RunStopName], sequence.Skip(i).Take(4).Select(e => e.Name));
            Assert.Single(sequence.Skip(i).Take(4).Select(e => e.ManagedThreadId).Distinct());
        }
    }

    [Fact]
    public void Misuse_is_refused_before_anything_is_written_and_leaves_runs_working()
    {
        using var log = new RunEventLog();
        var name = NewCase();
        Assert.Throws<ArgumentException>(() => MarkedRuns.Measure("", "serialize", 0, () => { }));
        Assert.Throws<ArgumentException>(() => MarkedRuns.Measure(name, "", 0, () => { }));
        Assert.Throws<ArgumentOutOfRangeException>(() => MarkedRuns.Measure(name, "serialize", -1, () => { }));
        Assert.Throws<ArgumentOutOfRangeException>(() => MarkedRuns.Measure(name, "serialize", 0, () => { }, operations: 0));
        Assert.Throws<ArgumentNullException>(() => MarkedRuns.Measure(name, "serialize", 0, null!));
        // An async lambda as an Action returns at its first await: the run would end there, so it is refused.
        var async = Assert.Throws<ArgumentException>(() => MarkedRuns.Measure(name, "serialize", 0, async () => await Task.Yield()));
        Assert.Contains("async", async.Message, StringComparison.Ordinal);
        Assert.Empty(log.StartStop(name));

        // A run stopped on another thread (what an await inside Start/Stop does) is closed but not measured. A thread of
        // its own, joined: Task.Run after an await may run on the very pool thread that started the run (seen once).
        var run = MarkedRuns.Start(name, "serialize", 0);
        Exception? stopped = null;
        var other = new Thread(() => stopped = Record.Exception(() => { run.Stop(); }));
        other.Start();
        other.Join();
        Assert.IsType<InvalidOperationException>(stopped);
        Assert.Null(run.Timing);
        Assert.Equal(1, MarkedRuns.Measure(name, "serialize", 0, () => { }).Run);
    }
}
