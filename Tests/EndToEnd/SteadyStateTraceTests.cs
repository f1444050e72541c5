using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Findings;
using EtwSerializerProfiler.Analyzer.Findings.Detectors;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// The trace proves the steady state (issue 13): real recordings of deserialize at N=10,000, with the automatic
/// warm-up and with --warmup 0, analyzed for the code tier of every sampled managed frame (method load events: tier-0,
/// instrumented, OSR, tier-1, ReadyToRun).
/// <para>
/// Measured (load average 1-2, kernel session): after the warm-up every serializer's measured runs had 0% of their
/// managed CPU in tier-0 or instrumented code (98-99% tier-1, the rest optimized/dynamic code), also for the one case
/// that ran into the 100-run bound. Cold (--warmup 0 --ops 1), 9 recordings at load 0.5-3: System.Text.Json 16-45%
/// (its hot code is largely ReadyToRun in the framework; the 16% was one of 3 recordings with 5 runs, 3 runs gave
/// 33-40%), Reflection 24-52%, Google.Protobuf 72-95%, Newtonsoft.Json 87-97%, each with the not-steady-state finding;
/// the mean of the four never under 55%. Bounds: warm under 5%; cold, each at least the finding's own threshold (10%,
/// so the finding must fire) and the mean at least 30%.
/// </para>
/// </summary>
[EndToEnd]
public sealed class SteadyStateTraceTests
{
    private static readonly string[] Serializers = ["Newtonsoft.Json", "System.Text.Json", "Google.Protobuf", "Reflection"];
    private const double MaxUnoptimizedWhenWarm = 0.05;
    private const double MinMeanUnoptimizedWhenCold = 0.30;

    private static (BenchmarkResults Results, TraceAnalysis Analysis, IReadOnlyList<Finding> Findings) Record(params string[] args)
    {
        var dir = Repo.NewTempDir("steady-trace");
        try
        {
            var (exit, folder) = Recording.Record(Path.Combine(dir, "trace"),
                ["--test", "deserialize", "--n", "10000", "--serializers", string.Join(",", Serializers), "--quiet", .. args]);
            Assert.Equal(0, exit);
            using var input = TraceInput.Open(folder.Path);
            var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
            return (Recording.Results(folder), analysis, FindingEngine.Detect(analysis));
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }

    private static double? Share(TraceAnalysis analysis, string serializer) =>
        CodeTiers.UnoptimizedShare(analysis.Runs.Where(r => r.Key.Serializer == serializer && !r.IsWarmup));

    private static double ManagedMs(TraceAnalysis analysis, string serializer) =>
        analysis.Runs.Where(r => r.Key.Serializer == serializer && !r.IsWarmup).Sum(r => r.TierMs.Values.Sum());

    private static bool HasFinding(IReadOnlyList<Finding> findings, string serializer) =>
        findings.Any(f => f.Kind == FindingKinds.NotSteadyState && f.Serializer == serializer);

    [Fact]
    public void After_the_warm_up_the_measured_runs_run_optimized_code_and_without_it_they_do_not()
    {
        // A 10 s warm-up bound: the warm-up now waits for the runtime's own tiering to go idle (TieringWatch), which
        // takes 2.3-4.4 s here under load; with 4 s only 1 of 4 reached steady state once (load 26, two spinning processes).
        var (warmResults, warm, warmFindings) = Record("--runs", "6", "--warmup-max-ms", "10000");
        var steady = 0;
        foreach (var name in Serializers)
        {
            var w = warmResults.Warmups!.Single(x => x.Serializer == name);
            var share = Share(warm, name);
            Assert.True(share is not null, $"{name}: no tiered managed frames in the measured runs' samples");
            if (w.SteadyState)
            {
                steady++;
                Assert.True(share < MaxUnoptimizedWhenWarm, $"{name} after {w.WarmupRuns} warm-up runs ({w.Reason}): {share:P1} unoptimized");
                Assert.False(HasFinding(warmFindings, name), $"{name}: not-steady-state finding after a steady warm-up");
            }
            else
            {
                // A warm-up that ran into its bound under load: the trace and the finding must agree with each other.
                Assert.Equal(share >= new FindingThresholds().MaxUnoptimizedShare, HasFinding(warmFindings, name));
            }
        }
        // 4 of 4 idle; 1 of 4 in a clean-clone CI run with both cores kept busy beside the suite. A rule that never
        // reached steady state would make the loop above check only consistency.
        Assert.True(steady >= 1, $"none of {Serializers.Length} serializers reached steady state");

        var (_, cold, coldFindings) = Record("--warmup", "0", "--ops", "1", "--runs", "3");
        var minEach = new FindingThresholds().MaxUnoptimizedShare;
        var shares = Serializers.ToDictionary(name => name, name => Share(cold, name) ?? 0);
        // Each cold serializer's share rests on its 3 runs' samples (System.Text.Json: about 15 at N=10,000), and most of
        // System.Text.Json's code is the framework's precompiled code, never unoptimized: one clean-clone CI run at load
        // ~12 read it 6.7% (1 sample in 15) against 16-45% in 9 earlier recordings. So 3 of the 4 must be over the
        // finding's threshold with the finding, the trace and the finding must agree for every one, and the mean holds.
        // The detector judges a case only with MinSampledMs of managed samples in its measured runs: on a fast machine
        // Google.Protobuf's three cold runs held 4 ms (69.8% unoptimized, no finding, rightly). Those are left out here.
        var judged = shares.Where(s => ManagedMs(cold, s.Key) >= new FindingThresholds().MinSampledMs).ToList();
        Assert.True(judged.Count >= 2, $"cold: only {judged.Count} serializers with enough managed samples to judge");
        foreach (var (name, share) in judged)
            Assert.True(share >= minEach == HasFinding(coldFindings, name),
                $"cold {name}: {share:P1} unoptimized (threshold {minEach:P0}) but {(HasFinding(coldFindings, name) ? "a" : "no")} not-steady-state finding; findings: "
                + string.Join("; ", coldFindings.Where(f => f.Serializer == name).Select(f => $"{f.Kind}: {f.Message}")));
        var coldEnough = shares.Count(s => s.Value >= minEach);
        Assert.True(coldEnough >= Serializers.Length - 1,
            $"cold: only {coldEnough} of {Serializers.Length} at least {minEach:P0} unoptimized: " + string.Join(", ", shares.Select(s => $"{s.Key} {s.Value:P1}")));
        Assert.True(shares.Values.Average() >= MinMeanUnoptimizedWhenCold,
            "cold: mean " + shares.Values.Average().ToString("P1") + " unoptimized: " + string.Join(", ", shares.Select(s => $"{s.Key} {s.Value:P1}")));
    }
}
