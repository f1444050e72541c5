using System.Text.Json;
using EtwSerializerProfiler.Analyzer.Findings;
using EtwSerializerProfiler.Analyzer.Findings.Detectors;
using EtwSerializerProfiler.Analyzer.Harness;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Common;
using static EtwSerializerProfiler.Tests.Analyzer.Findings.SyntheticRuns;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Findings;

/// <summary>Each detector against hand-built runs just below and just above its thresholds.</summary>
public sealed class FindingDetectorTests
{
    private static readonly FindingThresholds T = FindingThresholds.Default;

    [Fact]
    public void Exceptions_are_info_below_the_warning_rate_warning_above_and_name_the_dominant_frame()
    {
        Assert.Empty(Detect(new ExceptionsDetector(), Group("DataContract", "deserialize", 100, 10)));

        var few = Detect(new ExceptionsDetector(), Group("XmlSerializer", "firstcall", 1, 40, measured: 1, set: r =>
        {
            r.Counters.CountException(new ExceptionSite("System.IO.FileNotFoundException", Sites.Frame("System.Private.CoreLib!System.Reflection.Assembly.Load")), 2);
        }));
        var info = Assert.Single(few);
        Assert.Equal(FindingSeverity.Info, info.Severity);
        Assert.Equal("System.Private.CoreLib!System.Reflection.Assembly.Load", info.Frame);

        var many = Detect(new ExceptionsDetector(), Group("DataContract", "deserialize", 100, 600, set: r =>
        {
            r.Counters.CountException(new ExceptionSite("System.FormatException", Sites.Frame("System.Private.DataContractSerialization!System.Text.Base64Encoding.GetBytes")), (int)T.WarningExceptionsPerRun * 2 - 10);
            r.Counters.CountException(new ExceptionSite("System.Xml.XmlException", Sites.Frame("X!Y.Z")), 10);
        }));
        var warning = Assert.Single(many);
        Assert.Equal(FindingSeverity.Warning, warning.Severity);
        Assert.Equal("System.Private.DataContractSerialization!System.Text.Base64Encoding.GetBytes", warning.Frame);
        Assert.Equal(T.WarningExceptionsPerRun * 2, warning.EvidenceValue("exceptionsPerRun"));
        Assert.Equal([1, 2], warning.Runs.Select(k => k.Run));
        Assert.Contains("System.FormatException", warning.Message, StringComparison.Ordinal);
        Assert.Contains("+1 other", warning.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Exceptions_only_in_the_warm_up_run_are_not_a_finding()
    {
        var runs = new[]
        {
            Run("Newtonsoft.Json", "deserialize", 10, 0, 30, warmup: true, set: r => r.Counters.CountException(new ExceptionSite("System.FormatException", Sites.Frame("M!T.Throw")), 500)),
            Run("Newtonsoft.Json", "deserialize", 10, 1, 3),
        };
        Assert.Empty(Detect(new ExceptionsDetector(), runs));
    }

    [Fact]
    public void A_case_with_only_warm_up_runs_has_no_finding()
    {
        // A recording cut during the warm-up: its runs describe the warm-up, not the serializer.
        var warmups = Enumerable.Range(0, 3).Select(i => Run("DataContract", "deserialize", 100, i, 30, warmup: true,
            set: r => r.Counters.CountException(new ExceptionSite("System.FormatException", Sites.Frame("M!T.Throw")), 500))).ToList();
        Assert.Empty(Detect(new ExceptionsDetector(), warmups));
        // One measured run beside them is a finding again: the detector was not blind.
        Assert.Single(Detect(new ExceptionsDetector(), [.. warmups, Run("DataContract", "deserialize", 100, 3, 30,
            set: r => r.Counters.CountException(new ExceptionSite("System.FormatException", Sites.Frame("M!T.Throw")), 500))]));
    }

    [Theory]
    [InlineData(0.6, 3.0, true)]     // ServiceStack.Text-like: 20% of the run
    [InlineData(0.004, 1.5, false)]  // clean serializer noise
    [InlineData(0.04, 0.5, false)]   // 8% of a tiny run but below the per-run minimum
    [InlineData(0.1, 20.0, false)]   // above the minimum but 0.5% of the run
    public void Contention_needs_both_the_per_run_minimum_and_the_share(double contentionMs, double durationMs, bool expected)
    {
        var found = Detect(new ContentionDetector(), Group("ServiceStack.Text", "deserialize", 1, durationMs, set: r =>
        {
            r.Counters.CountContention(Sites.At("ServiceStack.Text!ServiceStack.Text.Pools.CharPool.GetCachedBuffer", null), contentionMs);
        }));
        Assert.Equal(expected, found.Count == 1);
        if (expected) Assert.Equal("ServiceStack.Text!ServiceStack.Text.Pools.CharPool.GetCachedBuffer", found[0].Frame);
    }

    [Fact]
    public void Contention_in_the_harness_own_code_is_not_the_serializers()
    {
        // A 64-thread recording once gave System.Text.Json.SourceGen a contention finding for the benchmark's worker crew lock.
        const string crew = "SerializerBenchmark!EtwSerializerProfiler.Benchmark.Runs.WorkerCrew.Run";
        const string pool = "ServiceStack.Text!ServiceStack.Text.Pools.CharPool.GetCachedBuffer";
        Assert.Empty(Detect(new ContentionDetector(), Group("System.Text.Json.SourceGen", "deserialize", 10, 3.0, set: r =>
        {
            r.Counters.CountContention(Sites.At(crew, null), 0.6);
        })));
        var found = Assert.Single(Detect(new ContentionDetector(), Group("ServiceStack.Text", "deserialize", 10, 3.0, set: r =>
        {
            r.Counters.CountContention(Sites.At(crew, null), 0.6);
            r.Counters.CountContention(Sites.At(pool, null), 0.6);
        })));
        Assert.Equal(pool, found.Frame);
        Assert.Equal(0.6, found.EvidenceValue("contentionMsPerRun")!.Value, 6);
        Assert.Equal(1.0, found.EvidenceValue("topFrameShare")!.Value, 6);
        Assert.True(HarnessCode.IsHarnessMethod("EtwSerializerProfiler.RunMarkers.MarkedRuns.Measure"));
        Assert.False(HarnessCode.IsHarnessMethod("EtwSerializerProfiler.Benchmark.RunsElsewhere.X"));
    }

    [Fact]
    public void First_call_reports_slow_first_calls_and_says_whether_JIT_dominates()
    {
        Assert.Empty(Detect(new FirstCallDetector(), Group("Google.Protobuf", "firstcall", 1, 7, measured: 1, set: r => r.Counters.CountJit(6))));
        var jit = Assert.Single(Detect(new FirstCallDetector(), Group("Newtonsoft.Json", "firstcall", 1, 116, measured: 1, set: r => r.Counters.CountJit(82, methods: 579))));
        Assert.Contains("JIT-compiling 579 methods", jit.Message, StringComparison.Ordinal);
        Assert.Equal(82.0 / 116, jit.EvidenceValue("jitShare")!.Value, 6);
        var codegen = Assert.Single(Detect(new FirstCallDetector(), Group("XmlSerializer", "firstcall", 1, 80, measured: 1, set: r => r.Counters.CountJit(10))));
        Assert.Contains("JIT only", codegen.Message, StringComparison.Ordinal);
        // Slow by the wall clock only: the worker waited for a core (both busy), its own CPU clock read 7 ms.
        Assert.Empty(Detect(new FirstCallDetector(), Group("Google.Protobuf", "firstcall", 1, 60, measured: 1, set: r =>
        {
            r.Counters.CountJit(58);
            r.InProcess = InProcess(r, cpuMs: 7);
        })));
        Assert.Single(Detect(new FirstCallDetector(), Group("Newtonsoft.Json", "firstcall", 1, 116, measured: 1, set: r => r.InProcess = InProcess(r, cpuMs: 110))));
        // Steady-state operations are never first calls, however slow.
        Assert.Empty(Detect(new FirstCallDetector(), Group("YamlDotNet", "deserialize", 1000, 900, set: r => r.Counters.CountJit(500))));
    }

    [Fact]
    public void Reflection_share_counts_Reflection_and_Activator_tags_only_with_enough_samples()
    {
        static Action<RunDraft> Tags(double reflection, double activator, double own) => r =>
        {
            r.TagTable["Reflection\\FieldInfo.SetValue"] = reflection;
            r.TagTable["Activator\\CreateInstance"] = activator;
            r.TagTable["Deserialize\\Reflection"] = own; // the serializer's own code: not reflection, despite the name
        };
        var found = Assert.Single(Detect(new ReflectionDetector(), Group("Reflection", "deserialize", 1000, 20, set: Tags(8, 2, 10))));
        Assert.Equal("Reflection\\FieldInfo.SetValue", found.Frame);
        Assert.Equal(0.4, found.EvidenceValue("reflectionShare")!.Value, 6);
        Assert.Empty(Detect(new ReflectionDetector(), Group("System.Text.Json", "deserialize", 1000, 20, set: Tags(2.5, 1, 16.5)))); // 17.5%
        Assert.Empty(Detect(new ReflectionDetector(), Group("Reflection", "deserialize", 1, 1, set: Tags(1, 0, 0.5)))); // 2 ms sampled in all
        Assert.Empty(Detect(new ReflectionDetector(), Group("DataContract", "firstcall", 1, 40, measured: 1, set: Tags(20, 0, 5))));
    }

    [Fact]
    public void Gc_bound_needs_share_pause_and_a_collection_of_its_own()
    {
        var found = Assert.Single(Detect(new GcPauseDetector(), Group("Reflection", "deserialize", 50_000, 100, set: r => { r.GcPauseMs = 45; r.Gen0 = 3; r.Gen1 = 2; })));
        Assert.Equal(0.45, found.EvidenceValue("gcPauseShare")!.Value, 6);
        Assert.Empty(Detect(new GcPauseDetector(), Group("Google.Protobuf", "deserialize", 1000, 4, set: r => { r.GcPauseMs = 3; r.Gen0 = 2; })));   // pause below minimum
        Assert.Single(Detect(new GcPauseDetector(), Group("Google.Protobuf", "deserialize", 20_000, 51, set: r => { r.GcPauseMs = 27; r.Gen1 = 1; })));   // one big gen1 GC
        Assert.Empty(Detect(new GcPauseDetector(), Group("System.Text.Json.SourceGen", "deserialize", 1000, 20, set: r => r.GcPauseMs = 10)));       // spill-over from an earlier GC
        Assert.Empty(Detect(new GcPauseDetector(), Group("Google.Protobuf", "deserialize", 50_000, 100, set: r => { r.GcPauseMs = 20; r.Gen0 = 4; })));  // 20%
    }

    [Theory]
    [InlineData(2.0, true)]
    [InlineData(1.6, true)]
    [InlineData(1.4, false)]
    [InlineData(1.0, false)]
    public void Super_linear_flags_exponents_above_the_threshold(double exponent, bool expected)
    {
        var runs = new[] { 20_000, 60_000, 180_000 }.SelectMany(n => Group("ObjectGraph", "deserialize", n, 5 * Math.Pow(n / 20_000.0, exponent)));
        var found = Detect(new SuperLinearScalingDetector(), runs);
        Assert.Equal(expected, found.Count == 1);
        if (expected)
        {
            Assert.Equal(exponent, found[0].EvidenceValue("slope")!.Value, 6);
            Assert.Null(found[0].Objects);
            Assert.Equal(6, found[0].Runs.Count); // the measured runs of all three sizes
        }
    }

    [Fact]
    public void Super_linear_needs_three_sizes_an_eightfold_spread_and_enough_time()
    {
        IEnumerable<RunAnalysis> Quadratic(int[] counts, double baseMs) =>
            counts.SelectMany(n => Group("ObjectGraph", "deserialize", n, baseMs * Math.Pow(n / (double)counts[0], 2)));
        Assert.Empty(Detect(new SuperLinearScalingDetector(), Quadratic([20_000, 180_000], 5)));          // two sizes
        Assert.Empty(Detect(new SuperLinearScalingDetector(), Quadratic([20_000, 40_000, 80_000], 5)));   // 4x spread
        Assert.Empty(Detect(new SuperLinearScalingDetector(), Quadratic([100, 1000, 10_000], 0.0001)));   // 1 us at the top
        Assert.Single(Detect(new SuperLinearScalingDetector(), Quadratic([20_000, 40_000, 80_000], 5), T with { MinScalingSpread = 4 }));
    }

    [Fact]
    public void Super_linear_fits_single_threaded_cpu_time_when_results_json_has_it()
    {
        // Wall-clock says quadratic (a busy machine preempted the big runs); the worker's CPU time says linear.
        var runs = new[] { 20_000, 60_000, 180_000 }.SelectMany(n => Group("Google.Protobuf", "deserialize", n, 5 * Math.Pow(n / 20_000.0, 2))).ToList();
        Assert.Empty(Detect(new SuperLinearScalingDetector(), runs.Select(r => r with { InProcess = InProcess(r, cpuMs: 3 * r.Key.Objects / 20_000.0) })));
        // With several threads CPU time is the process's, so the wall clock minus GC pauses is used instead.
        Assert.Single(Detect(new SuperLinearScalingDetector(), runs.Select(r => r with { InProcess = InProcess(r, cpuMs: 3 * r.Key.Objects / 20_000.0, threads: 4) })));
    }

    [Fact]
    public void Super_linear_fits_on_cpu_time_where_the_serializers_own_work_is_two_samples_or_more_pooled_or_bounded()
    {
        // Five samples, 5 ms on-CPU, the thread's CPU clock 6 ms (results.json). With 2 ms of its own (two samples'
        // worth) the on-CPU figure is used; without a kernel session, the clock.
        static RunAnalysis OnCpu(double gcMs) => SyntheticRuns.Run("Google.Protobuf", "deserialize", 20_000, 1, 8, set: r =>
        {
            r.CpuMs = 5;
            r.Samples = 5;
            r.TagTable[EtwSerializerProfiler.Analyzer.StackTags.StackTagMatcher.Gc] = gcMs;
            r.TagTable["Deserialize\\Google.Protobuf"] = 5 - gcMs;
            r.InProcess = InProcess(r, cpuMs: 6);
        });
        Assert.Equal(2, SuperLinearScalingDetector.PointMs([OnCpu(3)], onCpu: true), 9);
        Assert.Equal(6, SuperLinearScalingDetector.PointMs([OnCpu(3)], onCpu: false), 9);
        // One sample of its own in each run: alone each is not a measurement, three together are (ObjectGraph at
        // N=20,000, where the thread's CPU, GC included, flattened the slope to 1.57).
        Assert.Equal(1, SuperLinearScalingDetector.PointMs([OnCpu(4), OnCpu(4), OnCpu(4)], onCpu: true), 9);
        // Half a sample each, 1.5 together: charged two samples (2 ms of CPU) over 3 calls, not the thread CPU of 6.
        Assert.Equal(2.0 / 3, SuperLinearScalingDetector.PointMs([OnCpu(4.5), OnCpu(4.5), OnCpu(4.5)], onCpu: true), 9);
        Assert.Equal(2, SuperLinearScalingDetector.PointMs([OnCpu(4), OnCpu(3), OnCpu(2)], onCpu: true), 9);
        // Two samples' worth is an upper bound: the thread's clock, when lower, is the better one.
        Assert.Equal(1.5, SuperLinearScalingDetector.PointMs([OnCpu(4.99) with { InProcess = InProcess(OnCpu(0), cpuMs: 1.5) }], onCpu: true), 9);
    }

    [Theory]
    [InlineData(new double[] { 1, 2, 4, 8 }, new double[] { 3, 6, 12, 24 }, 1.0)]
    [InlineData(new double[] { 10, 100, 1000 }, new double[] { 1, 100, 10_000 }, 2.0)]
    [InlineData(new double[] { 5, 50 }, new double[] { 7, 7 }, 0.0)]
    public void LogLogFit_recovers_the_exponent_of_a_power_law(double[] n, double[] ms, double slope) =>
        Assert.Equal(slope, LogLogFit.Slope([.. n.Zip(ms)])!.Value, 9);

    [Fact]
    public void LogLogFit_needs_two_distinct_sizes() => Assert.Null(LogLogFit.Slope([(10, 1), (10, 2)]));

    [Fact]
    public void Debug_build_and_debugger_come_from_results_json()
    {
        var runs = Group("Google.Protobuf", "deserialize", 100, 1).ToList();
        Assert.Empty(Detect(new DebugBuildDetector(), runs, results: Results()));
        Assert.Empty(Detect(new DebugBuildDetector(), runs, results: null));
        var debug = Assert.Single(Detect(new DebugBuildDetector(), runs, results: Results("Debug")));
        Assert.Equal(FindingSeverity.Critical, debug.Severity);
        Assert.Equal(runs.Count, debug.Runs.Count);
        Assert.Empty(Detect(new DebuggerAttachedDetector(), runs, results: Results()));
        Assert.Single(Detect(new DebuggerAttachedDetector(), runs, results: Results(debugger: true)));
    }

    [Fact]
    public void Engine_puts_critical_findings_first_and_reports_render_them()
    {
        var runs = Group("DataContract", "deserialize", 100, 600, set: r =>
        {
            r.Counters.CountException(new ExceptionSite("System.FormatException", Sites.Frame("M!T.Throw")), 12_800);
        }).ToList();
        var findings = FindingEngine.Detect(new FindingContext(Analysis(runs), Results("Debug"), T));
        Assert.Equal([FindingKinds.DebugBuild, FindingKinds.Exceptions], findings.Select(f => f.Kind));

        var text = FindingsReport.Text(findings, TableFormat.Text);
        Assert.Contains("[critical] debug-build: process", text, StringComparison.Ordinal);
        Assert.Contains("[warning] exceptions: DataContract deserialize N=100 (runs 1-2): 12,800 exceptions per run", text, StringComparison.Ordinal);
        Assert.Contains("none above the thresholds", FindingsReport.Text([], TableFormat.Text), StringComparison.Ordinal);

        var json = JsonDocument.Parse(FindingsReport.Json(findings).ToJsonString()).RootElement;
        var exceptions = json[1];
        foreach (var field in new[] { "kind", "severity", "serializer", "operation", "objects", "runs", "message", "evidence", "frame" })
            Assert.True(exceptions.TryGetProperty(field, out _), $"finding lacks '{field}'");
        Assert.Equal("exceptions", exceptions.GetProperty("kind").GetString());
        Assert.Equal(12_800, exceptions.GetProperty("evidence").GetProperty("exceptionsPerRun").GetDouble());
        Assert.Equal("M!T.Throw", exceptions.GetProperty("frame").GetString());
        Assert.Equal(2, exceptions.GetProperty("runs").GetArrayLength());
    }

    [Fact]
    public void Thresholds_are_the_single_source_a_detector_reads()
    {
        var runs = Group("Reflection", "deserialize", 50_000, 100, set: r => { r.GcPauseMs = 20; r.Gen0 = 4; }).ToList();
        Assert.Empty(Detect(new GcPauseDetector(), runs));
        Assert.Single(Detect(new GcPauseDetector(), runs, T with { MinGcPauseShare = 0.15 }));
    }

    [Fact]
    public void Tracing_cost_is_said_only_of_cases_the_analysis_holds()
    {
        // results.json measured A and B; --serializers kept A's runs only.
        var cost = new TracingCostEstimate(20, 12, 30, 12, 12);
        var analysis = Analysis(Group("A", "serialize", 100, 1)) with
        {
            TracingCost = new Dictionary<(string, string, int), TracingCostEstimate> { [("A", "serialize", 100)] = cost, [("B", "serialize", 100)] = cost },
        };
        var finding = Assert.Single(new TracingCostDetector().Detect(new FindingContext(analysis, null, T)));
        Assert.Equal("A", finding.Serializer);
        Assert.Equal(2, finding.Runs.Count);
    }
}
