using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Samples;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Stacks;
using EtwSerializerProfiler.Analyzer.Timeline;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Kernel;
using EtwSerializerProfiler.Recorder.Profiles;

namespace EtwSerializerProfiler.Tests.Analyzer.Kernel;

/// <summary>The kernel session's analysis stages on hand-made inputs whose answers are known exactly.</summary>
public sealed class KernelStagesTests
{
    private const int Worker = 20, Marker = 10;
    private const long Origin = 5_000_000_000; // perf's CLOCK_MONOTONIC at the trace's 0 ms

    private static long Ns(double ms) => Origin + (long)(ms * 1_000_000);

    private static PassTimeline Timeline()
    {
        var t = new PassTimeline();
        t.Clock.Observe(Origin, 0);
        t.Clock.Observe(Origin + 1_000_000_000, 1000);
        return t;
    }

    private static RunDraft Run(double start, double end) => new()
    {
        Key = new RunKey("S", "deserialize", 1, 1),
        StartMs = start,
        EndMs = end,
        WorkerThreadId = Worker,
        MarkerThreadId = Marker,
    };

    [Fact]
    public void The_clock_puts_perf_nanoseconds_on_the_traces_milliseconds()
    {
        var t = Timeline();
        Assert.Equal(1e6, t.Clock.TicksPerMs, 6);
        Assert.Equal(12.5, t.Clock.ToRelativeMs(Ns(12.5)), 9);
    }

    [Fact]
    public void Off_cpu_time_is_split_by_what_it_overlaps_and_by_the_kernels_state()
    {
        var timeline = Timeline();
        timeline.GcPauses = [new Interval(20, 23)];
        timeline.OtherSuspensions = [new Interval(23, 24)];
        timeline.Contention.Add((Worker, new Interval(40, 45)));
        var kernel = new KernelTrace();
        void Off(double outMs, char state, double inMs, double? wakeMs = null)
        {
            kernel.SwitchOuts.Add(new KernelSwitchOut(Ns(outMs), Worker, state, 0, KernelTrace.NoStack));
            kernel.SwitchIns.Add((Ns(inMs), Worker));
            if (wakeMs is { } w) kernel.Wakings.Add(new KernelWaking(Ns(w), 99, Worker, KernelTrace.NoStack));
        }
        Off(-5, 'S', 1, wakeMs: 0.5);  // starts before the window: only its part inside counts
        Off(10, 'R', 12);              // preempted
        Off(20, 'S', 26, wakeMs: 25);  // GC 3 + other suspension 1 + waiting 1, then ready 1
        Off(40, 'S', 45.5, wakeMs: 45); // lock 5, ready 0.5
        Off(60, 'D', 61);              // uninterruptible, never woken by a recorded thread
        Off(99, 'S', 150);             // ends after the window
        var run = Run(0, 100);

        OffCpuClassifier.Classify([run], kernel, timeline);

        Assert.Equal(2.0, run.OffCpuMs[OffCpuReason.Preempted], 6);
        Assert.Equal(3.0, run.OffCpuMs[OffCpuReason.Gc], 6);
        Assert.Equal(1.0, run.OffCpuMs[OffCpuReason.Suspension], 6);
        Assert.Equal(5.0, run.OffCpuMs[OffCpuReason.Lock], 6);
        Assert.Equal(0.5 + 1.0 + 0.5, run.OffCpuMs[OffCpuReason.Ready], 6);     // after each wake-up
        Assert.Equal(1.0, run.OffCpuMs[OffCpuReason.Uninterruptible], 6);
        // 0-0.5 before the first wake-up, the 1 ms of 20-25 outside both suspensions, and 99-100.
        Assert.Equal(0.5 + 1.0 + 1.0, run.OffCpuMs[OffCpuReason.Waiting], 6);
        Assert.Equal(2 + 3 + 1 + 5 + 2 + 1 + 2.5, run.OffCpuMs.Values.Sum(), 6);
    }

    [Fact]
    public void An_off_cpu_stretch_starts_at_perfs_out_record_when_one_comes_before_the_next_switch_in()
    {
        // The on-CPU time ends at the OUT record (SwitchCpuTime), so the off-CPU time starts there: the two add up
        // to the window.
        var kernel = new KernelTrace();
        foreach (var (tracepoint, record, back) in new[] { (10.0, 10.25, 12.0), (20.0, 20.5, 21.0) })
        {
            kernel.SwitchOuts.Add(new KernelSwitchOut(Ns(tracepoint), Worker, 'R', 0, KernelTrace.NoStack));
            kernel.SwitchOutRecords.Add((Ns(record), Worker));
            kernel.SwitchIns.Add((Ns(back), Worker));
        }
        var run = Run(0, 100);
        OffCpuClassifier.Classify([run], kernel, Timeline());
        Assert.Equal(1.75 + 0.5, run.OffCpuMs[OffCpuReason.Preempted], 6);
        Assert.Equal(100 - 2.25, SwitchesOf(kernel).OnCpuMs(Worker, 0, 100), 6);

        // A record after the next switch-in belongs to a later switch-out: the tracepoint starts the stretch.
        var late = new KernelTrace();
        late.SwitchOuts.Add(new KernelSwitchOut(Ns(10), Worker, 'R', 0, KernelTrace.NoStack));
        late.SwitchIns.Add((Ns(12), Worker));
        late.SwitchOutRecords.Add((Ns(30), Worker));
        var other = Run(0, 100);
        OffCpuClassifier.Classify([other], late, Timeline());
        Assert.Equal(2.0, other.OffCpuMs[OffCpuReason.Preempted], 6);
    }

    private static SwitchCpuTime SwitchesOf(KernelTrace kernel) => new(kernel, Timeline().Clock);

    [Fact]
    public void A_crew_runs_off_cpu_time_is_its_crew_threads_each_and_not_the_waiting_workers()
    {
        // --threads 2: the worker releases the crew and waits for it the whole window (the harness's wait, not off-CPU
        // time of the calls); each crew thread's own time off the CPU inside the window is the run's, and the
        // crew's on- plus off-CPU time is two windows.
        const int Crew1 = 31, Crew2 = 32;
        var kernel = new KernelTrace();
        void Off(int thread, double outMs, char state, double inMs, double? wakeMs = null)
        {
            kernel.SwitchOuts.Add(new KernelSwitchOut(Ns(outMs), thread, state, 0, KernelTrace.NoStack));
            kernel.SwitchIns.Add((Ns(inMs), thread));
            if (wakeMs is { } w) kernel.Wakings.Add(new KernelWaking(Ns(w), Worker, thread, KernelTrace.NoStack));
        }
        Off(Worker, 1, 'S', 99, wakeMs: 98);  // the worker's wait for the crew: not classified
        Off(Crew1, 10, 'R', 14);              // preempted 4
        Off(Crew1, 50, 'S', 100.5, wakeMs: 100.2); // done at 50, waits for the next run past the window: 50
        Off(Crew2, 30, 'R', 31);              // preempted 1
        Off(Crew2, 70, 'S', 101);             // done at 70: 30 waiting
        var run = Run(0, 100);
        run.CrewThreadIds.AddRange([Crew1, Crew2]);

        OffCpuClassifier.Classify([run], kernel, Timeline());

        Assert.Equal(4.0 + 1.0, run.OffCpuMs[OffCpuReason.Preempted], 6);
        Assert.Equal(50.0 + 30.0, run.OffCpuMs[OffCpuReason.Waiting], 6);
        var switches = SwitchesOf(kernel);
        var onCpu = switches.OnCpuMs(Crew1, 0, 100) + switches.OnCpuMs(Crew2, 0, 100);
        Assert.Equal(2 * 100.0, onCpu + run.OffCpuMs.Values.Sum(), 6);
    }

    [Fact]
    public void Without_switch_in_records_no_off_cpu_figure_is_invented()
    {
        var kernel = new KernelTrace();
        kernel.SwitchOuts.Add(new KernelSwitchOut(Ns(10), Worker, 'S', 0, KernelTrace.NoStack));
        var run = Run(0, 100);
        OffCpuClassifier.Classify([run], kernel, Timeline());
        Assert.Empty(run.OffCpuMs);
    }

    [Fact]
    public void The_marker_wait_from_switches_runs_from_its_switch_out_to_its_wake_up()
    {
        // The benchmark's handshake: RunStart; the marker wakes from its idle wait and blocks in the run wait; the
        // worker's RunBegin ... RunEnd; the worker wakes the marker (sched_waking), which gets the CPU a little later.
        var timeline = Timeline();
        timeline.RunMarks.AddRange([
            new RunMark(1.0, RunMarkKind.Start, Marker, Worker),
            new RunMark(2.05, RunMarkKind.Begin, 0, Worker),
            new RunMark(30.0, RunMarkKind.End, 0, Worker),
            new RunMark(31.0, RunMarkKind.Stop, Marker, Worker)]);
        var kernel = new KernelTrace();
        kernel.SwitchIns.Add((Ns(1.5), Marker));                                             // back from the idle wait
        kernel.SwitchOuts.Add(new KernelSwitchOut(Ns(2.0), Marker, 'S', Worker, KernelTrace.NoStack)); // into the run wait
        kernel.Wakings.Add(new KernelWaking(Ns(30.01), Worker, Marker, KernelTrace.NoStack));  // released after RunEnd
        kernel.SwitchIns.Add((Ns(30.4), Marker));                                            // scheduled later: not the window's end
        kernel.SwitchOuts.Add(new KernelSwitchOut(Ns(30.5), Marker, 'S', 0, KernelTrace.NoStack));   // idle wait again
        var run = Run(2.05, 30.0);
        var analysis = new AnalysisDraft { Trace = new TraceInfo { Path = "t", Format = "nettrace" } };
        analysis.RunList.Add(run);
        var summary = KernelMarkerWindows.Apply(analysis, kernel, timeline, new KernelSessionSummary { File = "k" });

        Assert.Equal(2.0, run.SwitchWaitStartMs!.Value, 6);
        Assert.Equal(30.01, run.SwitchWaitEndMs!.Value, 6);
        Assert.Equal(1, summary.RunsWithSwitchWindow);
        Assert.Equal(0.05, summary.MaxSwitchWindowDisagreementMs!.Value, 6);
    }

    [Fact]
    public void Managed_code_is_found_by_address_and_reused_addresses_go_to_the_code_live_at_the_time()
    {
        var map = ManagedCodeMap.FromMethods([
            new(0x1000, 0x100, "A.Tier0()", "a.dll", CodeTier.Tier0, 10),
            new(0x2000, 0x80, "A.Tier1()", "a.dll", CodeTier.Tier1, 50),
            new(0x2000, 0x80, "B.Later()", "b.dll", CodeTier.Tier1, 500),
            new(0x3000, 0x40, "C.R2R()", "c.dll", CodeTier.ReadyToRun, double.MinValue)]);
        Assert.Equal("A.Tier0()", map.Find(0x10ff)?.Name);
        Assert.Null(map.Find(0x1100));
        Assert.Equal("A.Tier1()", map.Find(0x2010, atMs: 100)?.Name);
        Assert.Equal("B.Later()", map.Find(0x2010, atMs: 600)?.Name);
        Assert.Equal(CodeTier.ReadyToRun, map.Find(0x3000)?.Tier);
        Assert.Null(map.Find(0x0fff));
    }

    [Fact]
    public void A_stack_that_lost_the_serializers_frame_to_frame_pointer_unwinding_gets_it_back_above_the_measured_call()
    {
        var tags = StackTagFile.Load(Path.Combine(Support.Repo.Root, "stacktags", "Serializers.stacktags"));
        var repair = new MeasuredCallRepair(tags);
        List<StackFrame> Stack() =>
        [
            new("System.Text.Json.dll", "System.Text.Json.Serialization.Metadata.JsonTypeInfo`1[System.__Canon].DeserializeAsObject(class System.IO.Stream)"),
            new("SerializerBenchmark.dll", "EtwSerializerProfiler.Benchmark.Runs.BenchmarkRunner.DeserializeRun(class Serializer,class System.Type,class System.IO.Stream)"),
            new("SerializerBenchmark.dll", "EtwSerializerProfiler.Benchmark.Runs.RunScope.Measure(value class RunContext,class System.Action)"),
        ];
        var matcher = new StackTagMatcher(tags);
        var lost = Stack();
        Assert.NotEqual("Deserialize\\System.Text.Json", matcher.Classify(lost));
        Assert.True(repair.Repair(lost, "System.Text.Json", "deserialize"));
        Assert.Equal("Deserialize\\System.Text.Json", matcher.Classify(lost));
        Assert.Equal(1, lost.FindIndex(f => f.Method.Contains("SystemTextJsonSerializer.Deserialize", StringComparison.Ordinal)));

        Assert.False(repair.Repair(lost, "System.Text.Json", "deserialize")); // already there: nothing twice
        var notMeasured = Stack().Skip(2).ToList();
        Assert.False(repair.Repair(notMeasured, "System.Text.Json", "deserialize"));
    }

    [Fact]
    public void The_profiles_kernel_part_renders_to_perf_events_with_stacks_where_the_profile_asks()
    {
        var events = PerfEventPlan.For(ProfileCatalog.Get("default"));
        Assert.Equal([PerfRecording.CpuClock, PerfRecording.SchedSwitch, PerfRecording.SchedWaking], events.Select(e => e.Name));
        // perf takes stacks on CPU samples only (perfStacks): the analysis never reads a switch's or wake-up's stack.
        Assert.Equal([true, false, false], events.Select(e => e.Stacks));
        Assert.Equal("cpu-clock/period=1001001,call-graph=fp/", events[0].Spec);
        // ETW keeps the profile's own stack list (WPA's wait analysis reads them).
        Assert.Equal(["Profile", "ContextSwitch", "ReadyThread"], ProfileCatalog.Get("default").Kernel!.Stacks);
        // The gc profile: context switches only (run windows), no sampling, no stacks.
        var gc = Assert.Single(PerfEventPlan.For(ProfileCatalog.Get("gc")));
        Assert.Equal(("sched:sched_switch/call-graph=no/", false), (gc.Spec, gc.Stacks));
    }
}
