using EtwSerializerProfiler.Analyzer.Reports;
using System.Text.Json;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Findings;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// Reflection attribution held to known answers (Tests/Workloads/KnownAnswer, docs/analyzer.md "Attribution"): work
/// called through MethodInfo.Invoke is not reflection; custom-attribute lookups interleaved with arithmetic are
/// reflection in the share the thread CPU clock measured; a harness that invokes its benchmark method by reflection
/// gets no reflection finding. One recording of the three workloads in one process (kernel session, the default
/// profile), shared by the three tests.
/// </summary>
[EndToEnd]
public sealed class ReflectionAttributionTests(ReflectionAttributionTests.Recorded recorded, ITestOutputHelper output)
    : IClassFixture<ReflectionAttributionTests.Recorded>
{
    public sealed class Recorded : IDisposable
    {
        private readonly string _dir = Repo.NewTempDir("refl-known");
        private readonly Lazy<(TraceAnalysis Analysis, List<AttributesTruth> Truth)> _recording;

        public Recorded() => _recording = new(Record);

        public TraceAnalysis Analysis => _recording.Value.Analysis;
        public IReadOnlyList<AttributesTruth> Truth => _recording.Value.Truth;

        private (TraceAnalysis, List<AttributesTruth>) Record()
        {
            var truthPath = Path.Combine(_dir, "truth.json");
            // 8 runs of 150 ms of CPU per workload (the first one to three warm-ups): about 3.6 s of CPU; recorded in 25 s at load average 23, 75 s with both cores also busy.
            var (exit, folder) = Recording.Record(Path.Combine(_dir, "trace"), "--", "dotnet", "exec", "--runtimeconfig", InterpretedInvokeConfig(), KnownAnswerTests.WorkloadDll,
                "--workload", "invoke,attributes,harness", "--runs", "8", "--run-ms", "150", "--truth", truthPath);
            Assert.Equal(0, exit);
            using var input = TraceInput.Open(folder.Path);
            var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
            Assert.NotNull(analysis.Trace.Kernel); // the CPU figures come from the kernel session
            return (analysis, JsonSerializer.Deserialize<List<AttributesTruth>>(File.ReadAllText(truthPath))!);
        }

        /// <summary>
        /// The workload's runtimeconfig with every MethodInfo.Invoke through the runtime's interpreted invoke, as
        /// BenchmarkDotNet's calls go (and every first call): the frame a priority-ranked Reflection\Interpreted invoke
        /// tag let win every sample under it (measured on this recording before the owner rule: the harness 100%
        /// reflection, with the finding). Without it .NET emits an invoke stub from the second call on. A runtimeconfig,
        /// not AppContext.SetSwitch in Main: the runtime reads the switch once, before Main (EventSource start-up).
        /// </summary>
        private string InterpretedInvokeConfig()
        {
            var config = System.Text.Json.Nodes.JsonNode.Parse(File.ReadAllText(Path.ChangeExtension(KnownAnswerTests.WorkloadDll, ".runtimeconfig.json")))!;
            var runtime = config["runtimeOptions"]!.AsObject();
            if (runtime["configProperties"] is null) runtime["configProperties"] = new System.Text.Json.Nodes.JsonObject();
            runtime["configProperties"]!["Switch.System.Reflection.ForceInterpretedInvoke"] = true;
            var path = Path.Combine(_dir, "interpreted-invoke.runtimeconfig.json");
            File.WriteAllText(path, config.ToJsonString());
            return path;
        }

        public void Dispose()
        {
            FileCleanup.TryDeleteDirectory(_dir);
        }
    }

    /// <summary>
    /// Each run is 150 ms of the worker's thread CPU time (not wall time, so a busy machine stretches the runs instead of
    /// thinning their samples): 750-1,050 ms over 5-7 measured runs, less GC (measured 756-887 ms over 5-6 runs). With wall-time runs of 250 ms, both cores busy
    /// left 105 ms on-CPU for the harness's 5 runs.
    /// </summary>
    private const double MinSampledMs = 400;

    /// <summary>
    /// How far below the clock's share the lookups may read (and the arithmetic above): 5 points of sampling, and 3
    /// more seen with both cores busy. A clean-clone CI run with a core kept busy read 29.6% (+2.9% ambiguous) against
    /// 37.8%, the verdict 29.2%; an earlier one 29.4% against 37.0%. The samples lose lookups to the code around them
    /// under load; quiet they read 2.8 points low.
    /// </summary>
    private const double LoadedShortfall = 0.08;

    public sealed record AttributesTruth(int Run, double AttributesMs, double ArithmeticMs);

    private (double Share, double SampledMs, int Runs) ReflectionShare(string workload)
    {
        var runs = recorded.Analysis.Runs.Where(r => r.Key.Serializer == workload && !r.IsWarmup).ToList();
        var sampled = runs.Sum(r => r.NonGcSampledMs);
        var share = sampled == 0 ? 0 : runs.Sum(r => r.TagMs("Reflection") + r.TagMs("Activator")) / sampled;
        var top = runs.SelectMany(r => r.Tags).GroupBy(t => t.Key).Select(g => (g.Key, Ms: g.Sum(t => t.Value))).OrderByDescending(t => t.Ms).Take(6);
        output.WriteLine($"{workload}: reflection {share:P2} of {sampled:F1} ms outside GC over {runs.Count} measured runs; tags: {string.Join(", ", top.Select(t => $"{t.Key} {t.Ms:F1}"))}");
        return (share, sampled, runs.Count);
    }

    [Fact]
    public void Work_called_through_MethodInfo_Invoke_is_at_most_3_percent_reflection()
    {
        var (share, sampled, runs) = ReflectionShare("Invoke");
        Assert.Equal(7, runs);
        Assert.True(sampled > MinSampledMs, $"only {sampled:F1} ms sampled");
        // The truth: one invoke per ~1 ms call of arithmetic, under 0.1%; charging the invoked work to reflection reads
        // near 100%. Measured: 0.00% and 0.19% quiet, 1.13% with both cores busy (6 samples in the interpreted invoke's
        // own frames, beside 48 ms of stripped runtime code), so 3%.
        Assert.True(share <= 0.03, $"{share:P2} reflection");
    }

    [Fact]
    public void Custom_attribute_lookups_are_reflection_in_the_share_the_thread_CPU_clock_measured_near_what_the_trace_can_place()
    {
        var (share, sampled, runs) = ReflectionShare("Attributes");
        var truth = recorded.Truth.Where(t => t.Run > 2).ToList();
        Assert.Equal(truth.Count, runs);
        var expected = truth.Sum(t => t.AttributesMs) / truth.Sum(t => t.AttributesMs + t.ArithmeticMs);
        output.WriteLine($"thread CPU clock (outside GC): lookups {expected:P2} of {truth.Sum(t => t.AttributesMs + t.ArithmeticMs):F1} ms");
        Assert.True(sampled > MinSampledMs, $"only {sampled:F1} ms sampled");
        // The thread CPU clock counts what the runtime does inside a lookup as the lookup's; the analyzer can say so only
        // where the stack reaches the reflection frame. Samples the trace cannot place (stripped runtime code no event
        // explains, the JIT compiling in the middle of a run) may be either side's: the truth must lie between the
        // share without them and the share with them, 5 points either way (sampling: about 1.8 points of standard
        // error at 750 samples), and the lookups may read <see cref="LoadedShortfall"/> further below. Measured: quiet
        // 34.7% vs 37.5% (2 ms ambiguous); both cores busy 29.4% vs 37.0% with 45.6 ms of unexplained runtime code.
        var measured = recorded.Analysis.Runs.Where(r => r.Key.Serializer == "Attributes" && !r.IsWarmup).ToList();
        var ambiguous = measured.Sum(r => r.TagMs(@"Native runtime\Runtime (libcoreclr, stripped)") + r.TagMs("JIT")) / sampled;
        output.WriteLine($"ambiguous (unexplained runtime code, JIT): {ambiguous:P2}");
        Assert.True(ambiguous <= 0.10, $"{ambiguous:P2} of the samples are unexplained runtime code or JIT: too many to hold the share to the truth");
        Assert.True(expected >= share - 0.05 && expected <= share + ambiguous + LoadedShortfall,
            $"{share:P2} reflection by the analyzer (+{ambiguous:P2} ambiguous) vs {expected:P2} measured in-process");
    }

    /// <summary>
    /// The verdict of a case whose causes the workload made (issue 44): custom-attribute lookups and arithmetic in
    /// the shares the thread CPU clock measured. The two causes come in their order (arithmetic, aimed at 65%, first),
    /// each within 5 points of the clock's share of the thread's CPU (plus what the trace cannot place, as above); the
    /// lookups are named down to the API and the method that called it, the arithmetic by its module (no stack tag
    /// knows this code: an app's own library).
    /// </summary>
    [Fact]
    public void The_verdict_names_the_lookups_and_the_arithmetic_in_their_measured_shares_and_order()
    {
        var verdict = Assert.Single(Verdicts.Of(recorded.Analysis, "Attributes"));
        foreach (var line in Verdicts.Lines([verdict])) output.WriteLine(line);
        var truth = recorded.Truth.Where(t => t.Run > 2).ToList();
        var lookups = truth.Sum(t => t.AttributesMs) / truth.Sum(t => t.AttributesMs + t.ArithmeticMs);
        var measured = recorded.Analysis.Runs.Where(r => r.Key.Serializer == "Attributes" && !r.IsWarmup).ToList();
        var ambiguous = measured.Sum(r => r.TagMs(@"Native runtime\Runtime (libcoreclr, stripped)") + r.TagMs("JIT")) / measured.Sum(r => r.CpuMs);
        var attributes = Assert.Single(verdict.Causes, c => c.Name.StartsWith("Reflection: Custom attributes", StringComparison.Ordinal));
        var arithmetic = Assert.Single(verdict.Causes, c => c.Name == "KnownAnswer code");
        Assert.Equal([arithmetic, attributes], verdict.Causes.Take(2));
        Assert.Contains(attributes.Detail, d => d.Contains("from AttributesWorkload.Lookups", StringComparison.Ordinal));
        Assert.Contains(arithmetic.Detail, d => d.Contains("in Arithmetic.", StringComparison.Ordinal)); // Loop or the Step it inlines or not
        double Share(Cause c) => c.Ms / verdict.OnCpuMs;
        output.WriteLine($"clock: lookups {lookups:P1}, arithmetic {1 - lookups:P1}; verdict: {Share(attributes):P1}, {Share(arithmetic):P1}; ambiguous {ambiguous:P1}");
        Assert.True(lookups >= Share(attributes) - 0.05 && lookups <= Share(attributes) + ambiguous + LoadedShortfall, $"lookups {Share(attributes):P1} vs {lookups:P1}");
        Assert.True(1 - lookups >= Share(arithmetic) - LoadedShortfall && 1 - lookups <= Share(arithmetic) + ambiguous + 0.05, $"arithmetic {Share(arithmetic):P1} vs {1 - lookups:P1}");
    }

    [Fact]
    public void A_harness_that_invokes_its_benchmark_by_reflection_gets_no_reflection_finding()
    {
        var (share, sampled, runs) = ReflectionShare("Harness");
        Assert.Equal(6, runs);
        Assert.True(sampled > MinSampledMs, $"only {sampled:F1} ms sampled");
        var findings = FindingEngine.Detect(recorded.Analysis);
        foreach (var f in findings) output.WriteLine($"finding {f.Kind}: {f.Serializer} {f.Operation}");
        Assert.DoesNotContain(findings, f => f.Kind == FindingKinds.Reflection && f.Serializer == "Harness");
        // And the figure itself: System.Text.Json, warm, reads no metadata per call (the finding's bar is 20%).
        Assert.True(share < 0.05, $"{share:P2} reflection");
    }
}
