using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// The analyzer's numbers, taken from a real EventPipe trace, against what the benchmark measured in-process
/// around the same runs (GC.CollectionCount, GC.GetTotalPauseDuration, GC.GetAllocatedBytesForCurrentThread,
/// Stopwatch). Tolerances are the ones promised in docs/analyzer.md.
/// </summary>
[EndToEnd]
[Collection(RecordedBenchmarkCollection.Name)]
public sealed class AnalyzerTruthTests(RecordedBenchmark recorded)
{
    private IReadOnlyList<RunAnalysis> Runs => recorded.Analysis.Runs;

    [Fact]
    public void Every_benchmark_run_is_found_in_the_trace_and_joined_with_its_in_process_result()
    {
        Assert.Equal(0, recorded.ExitCode);
        var expected = recorded.InProcess.Runs.Select(r => (r.Serializer, r.Operation, r.Objects, r.Run)).Order().ToList();
        var found = Runs.Select(r => (r.Key.Serializer, r.Key.Operation, r.Key.Objects, r.Key.Run)).Order().ToList();
        Assert.Equal(RecordedBenchmark.Serializers.Length * 2 * RecordedBenchmark.Runs, expected.Count);
        Assert.Equal(expected, found);
        Assert.All(Runs, r => Assert.NotNull(r.InProcess));
        Assert.All(Runs, r => Assert.Equal(WindowSource.MarkerWait, r.Source));
    }

    [Fact]
    public void Gc_counts_per_generation_equal_the_in_process_CollectionCount_deltas()
    {
        foreach (var run in Runs)
            Assert.True(run.GcCount == run.InProcess!.GcCount, $"{run.Key}: trace {run.GcCount} vs in-process {run.InProcess.GcCount}");
        // The comparison above means something only if collections happened inside runs.
        Assert.True(Runs.Sum(r => r.GcCount.Total) >= 3, $"only {Runs.Sum(r => r.GcCount.Total)} GCs inside runs: the fixture no longer exercises GC attribution");
        // The count depends on the GC's gen0 budget, which the fixture pins; the notes say so.
        Assert.Equal("GC gen0 budget: at most 16 MiB (pinned by DOTNET_GCgen0size=0x1000000); GC counts per run depend on it",
            Assert.Single(AnalysisReport.TraceNotes(recorded.Analysis), n => n.StartsWith("GC gen0 budget", StringComparison.Ordinal)));
    }

    [Fact]
    public void Gc_pause_agrees_with_GetTotalPauseDuration_up_to_suspension_and_restart()
    {
        // The trace's pause runs from SuspendEEStart to RestartEEStop (PerfView's definition). The runtime's own
        // counter leaves out the time a blocking GC spends stopping and restarting threads, and times a background
        // GC's pauses on the background GC thread. So the truth lies between the pause without its suspension and
        // restart, and the whole pause, give or take the tolerance promised in docs/analyzer.md.
        // Per run the two clocks can disagree by a scheduler slice or more when the machine is busy: the runtime stamps
        // its pause and the event its own time, and a preempted GC thread sits between them. Measured with both cores
        // busy (8 recordings of this fixture, 72 runs): 70 within 10%, two in one recording 20% and 25% off, while the
        // sums over all runs stayed within 1% of the pause without suspension and restart. So every run within 30%,
        // at most two outside 10%, and the sums within 3% (docs/analyzer.md#accuracy-against-independent-truth).
        var outside10 = new List<string>();
        foreach (var run in Runs)
        {
            var truth = run.InProcess!.GcPauseMs;
            var gcOnly = run.GcPauseMs - run.GcSuspendMs - run.GcRestartMs;
            var miss = Math.Max(Math.Max(gcOnly - truth, truth - run.GcPauseMs), 0);
            var what = $"{run.Key}: trace pause {run.GcPauseMs:F3} ms (suspend {run.GcSuspendMs:F3}, restart {run.GcRestartMs:F3}) vs in-process {truth:F3} ms";
            Assert.True(miss <= Math.Max(1.0, truth * 0.30), what);
            if (miss > Math.Max(1.0, truth * 0.10)) outside10.Add(what);
            Assert.InRange(run.GcSuspendMs + run.GcRestartMs, 0, run.GcPauseMs + 1e-9);
        }
        Assert.True(outside10.Count <= 2, $"{outside10.Count} runs outside 10%: {string.Join("; ", outside10)}");
        var inProcess = Runs.Sum(r => r.InProcess!.GcPauseMs);
        var whole = Runs.Sum(r => r.GcPauseMs);
        var gcOnlySum = Runs.Sum(r => r.GcPauseMs - r.GcSuspendMs - r.GcRestartMs);
        Assert.True(inProcess >= gcOnlySum * 0.97 - 1 && inProcess <= whole * 1.03 + 1,
            $"all runs: in-process {inProcess:F1} ms vs trace {gcOnlySum:F1} (without suspension and restart) to {whole:F1} ms");
        Assert.True(whole >= 10, $"only {whole:F1} ms of GC pause inside runs: the fixture no longer exercises pause attribution");
    }

    [Fact]
    public void Duration_is_the_Stopwatch_interval_to_a_microsecond()
    {
        foreach (var run in Runs)
        {
            Assert.NotNull(run.InProcess!.OuterDurationMs);
            // RunEnd version 1 carries the Stopwatch's reads: every window sits exactly on them (issue 22's 0.75 ms).
            Assert.True(run.PinnedToStopwatch, $"{run.Key}: window not pinned to the Stopwatch's reads");
            WindowTruth.AssertAgrees(run);
        }
        var held = Runs.Count(r => r.InProcess!.OuterDurationMs - r.InProcess.DurationMs > 0.5);
        Assert.True(held <= Runs.Count / 2, $"{held} of {Runs.Count} runs took over 0.5 ms to write RunBegin/RunEnd: the edges are no longer tight");
    }

    [Fact]
    public void Allocated_bytes_from_allocation_ticks_are_within_25_percent_of_GetAllocatedBytesForCurrentThread()
    {
        // Ticks fire about every 100 KB, so the estimate is only meaningful well above that.
        var sizable = Runs.Where(r => r.InProcess!.AllocatedBytes >= 2_000_000).ToList();
        Assert.NotEmpty(sizable);
        foreach (var run in sizable)
        {
            var truth = (double)run.InProcess!.AllocatedBytes;
            Assert.True(Math.Abs(run.Counters.AllocatedBytes - truth) <= truth * 0.25, $"{run.Key}: ticks {run.Counters.AllocatedBytes:N0} B vs in-process {truth:N0} B");
        }
    }

    [Fact]
    public void Sampled_cpu_of_a_single_threaded_run_does_not_exceed_its_duration()
    {
        // EventPipe's sampler, analyzed without the kernel session (KernelSessionTruthTests holds the kernel's CPU to
        // the thread CPU clock). One worker thread cannot run managed code for longer than the run lasted (plus one
        // sample of slack).
        var eventPipe = recorded.EventPipeAnalysis;
        Assert.Equal(CpuSourceKind.EventPipe, eventPipe.Trace.CpuSource);
        var Runs = eventPipe.Runs;
        var slack = 2 * (eventPipe.Trace.ObservedSampleIntervalMs ?? 1.0);
        foreach (var run in Runs)
            Assert.True(run.CpuMs <= run.DurationMs + slack, $"{run.Key}: CPU {run.CpuMs:F2} ms > duration {run.DurationMs:F2} ms");
        // No samples are taken while the runtime is suspended for GC, so GC pauses are not managed time. The window
        // without samples around a GC is a little longer than the pause itself (threads restarting, a background
        // GC's phases), and a sampler starved of CPU on a loaded machine loses the tail of a run (a sample stands
        // for the time before it, so the time after a run's last sample is nobody's). One run can therefore fall
        // far short (3 samples in 21 ms with a busy loop on the other core); over all busy runs together the bound
        // still catches gross sample loss, e.g. samples charged to the wrong thread, which gives ~0.
        var busy = Runs.Where(r => r.DurationMs - r.GcPauseMs > 20).ToList();
        Assert.NotEmpty(busy);
        var sampled = busy.Sum(r => r.CpuMs);
        var managedTime = busy.Sum(r => r.DurationMs - r.GcPauseMs);
        Assert.True(sampled >= managedTime * 0.5, $"CPU {sampled:F2} ms of {managedTime:F2} ms outside GC in {busy.Count} busy runs ({busy.Sum(r => r.Samples)} samples): samples are being lost");
    }

    [Fact]
    public void Reflection_and_Activator_tags_find_the_reflection_baselines_calls_and_none_in_protobuf()
    {
        // How large the share is, is held against in-process truth by KnownAnswerTests; here, that it lands on the
        // right serializer: FieldInfo.Get/SetValue and Activator in the baseline, nothing in hand-written code.
        static (double Ms, double Share) Reflected(IEnumerable<RunAnalysis> runs)
        {
            var list = runs.ToList();
            var total = list.Sum(r => r.NonGcSampledMs);
            var ms = list.Sum(r => r.TagMs("Reflection") + r.TagMs("Activator"));
            return (ms, total == 0 ? 0 : ms / total);
        }
        // Over both operations: quiet, about 8 ms per serialize and deserialize pair (deserialize 5.0 ms of 76, serialize
        // 2.9 of 23), some 8 samples of 2 ms over the measured runs. The deserialize runs alone hold about 5, and a CI
        // run with a core kept busy read 1.3% there (2 samples). Two samples or more: a Poisson count of mean 8 falls
        // short 3 times in 1,000, and reflection charged elsewhere leaves none.
        var period = recorded.Analysis.Trace.Kernel?.SamplePeriodMs ?? 1.0;
        var (reflectionMs, reflection) = Reflected(Runs.Where(r => r.Key.Serializer == "Reflection" && !r.IsWarmup));
        var (_, protobuf) = Reflected(Runs.Where(r => r.Key.Serializer == "Google.Protobuf" && r.Key.Operation == "deserialize" && !r.IsWarmup));
        Assert.True(reflectionMs >= 1.5 * period, $"Reflection serializer: only {reflectionMs:F2} ms ({reflection:P1}) of its CPU under Reflection/Activator");
        Assert.True(protobuf < 0.01, $"Google.Protobuf: {protobuf:P1} of deserialize CPU under Reflection/Activator");
    }

    [Fact]
    public void Every_run_is_charged_only_its_own_serializers_tags_and_its_tags_add_up_to_its_CPU()
    {
        foreach (var run in Runs)
        {
            var own = new[] { "Serialize\\" + run.Key.Serializer, "Deserialize\\" + run.Key.Serializer };
            var others = run.Tags.Keys.Where(t => (t.StartsWith("Serialize\\", StringComparison.Ordinal) || t.StartsWith("Deserialize\\", StringComparison.Ordinal)) && !own.Contains(t)).ToList();
            Assert.True(others.Count == 0, $"{run.Key}: tagged as another serializer: {string.Join(", ", others)}");
            Assert.Equal(run.CpuMs, run.Tags.Values.Sum(), 6);
        }
        var protobufSerialize = Runs.Where(r => r.Key.Serializer == "Google.Protobuf" && r.Key.Operation == "serialize").ToList();
        Assert.Contains(protobufSerialize.SelectMany(r => r.Tags.Keys), k => k == "Serialize\\Google.Protobuf");
    }

    [Fact]
    public void Hot_methods_name_the_reflection_serializers_own_code()
    {
        var methods = recorded.Analysis.HotMethods[("Reflection", "deserialize", RecordedBenchmark.Objects)];
        Assert.Contains(methods.Keys, m => m.Contains("ReflectionSerializer.Deserialize", StringComparison.Ordinal));
        Assert.All(methods.Values, v => Assert.True(v.ExclusiveMs <= v.InclusiveMs + 1e-9));
    }
}
