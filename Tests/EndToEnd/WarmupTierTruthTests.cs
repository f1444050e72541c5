using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Findings;
using EtwSerializerProfiler.Analyzer.Findings.Detectors;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// The automatic warm-up's verdict held to the tiers perf itself sees (<see cref="PerfMapTierTruth"/>).
/// ESP_TIER_TRUTH_TRACE=FOLDER[;FOLDER..] checks earlier recordings made the same way instead.
/// </summary>
[EndToEnd]
public sealed class WarmupTierTruthTests(ITestOutputHelper output) : IDisposable
{
    public static readonly string[] PerfMapEnvironment =
        [.. ReflectionTruthTests.PerfMapEnvironment, "--env", "DOTNET_PerfMapShowOptimizationTiers=1"];

    private readonly string _dir = Repo.NewTempDir("tier-truth");
    private readonly List<int> _pids = [];

    public void Dispose()
    {
        foreach (var pid in _pids)
        {
            File.Delete($"/tmp/perf-{pid}.map");
            File.Delete($"/tmp/perfinfo-{pid}.map");
        }
        try { Directory.Delete(_dir, recursive: true); } catch (IOException) { }
    }

    [Fact]
    public void Explore()
    {
        var folders = Environment.GetEnvironmentVariable("ESP_TIER_TRUTH_TRACE");
        if (folders is null) return;
        foreach (var folder in folders.Split(';'))
        {
            Report(folder);
            if (Environment.GetEnvironmentVariable("ESP_TIER_TRUTH_TIMELINE") is not null) Timeline(folder);
        }
    }

    private void Report(string folder)
    {
        var results = Common.BenchmarkResults.Load(Path.Combine(folder, "results.json"));
        using var input = TraceInput.Open(folder);
        var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
        output.WriteLine($"{folder}: {results.Runtime}");
        foreach (var t in PerfMapTierTruth.Compute(folder))
        {
            var runs = analysis.Runs.Where(r => r.Key.Serializer == t.Serializer && r.Key.Operation == t.Operation && r.IsMeasured).ToList();
            var tool = NotSteadyStateDetector.UnoptimizedShare(runs);
            var tiers = string.Join(", ", runs.SelectMany(r => r.TierMs).GroupBy(kv => kv.Key).Select(g => $"{g.Key} {g.Sum(kv => kv.Value):F0} ms"));
            var w = results.Warmups?.FirstOrDefault(x => x.Serializer == t.Serializer && x.Operation == t.Operation);
            output.WriteLine($"  {t.Serializer} {t.Operation}: perf {t.UnoptimizedShare:P1} unoptimized ({t}; {t.Untiered} untiered)");
            output.WriteLine($"    analyzer {tool:P1} unoptimized ({tiers}); warm-up {(w?.SteadyState == true ? "steady" : "NOT steady")} after {w?.WarmupRuns} runs: {w?.Reason}");
        }
    }

    private void Timeline(string folder)
    {
        using var source = new Microsoft.Diagnostics.Tracing.EventPipeEventSource(Path.Combine(folder, "trace.nettrace"));
        var lines = new List<(double, string)>();
        source.Clr.MethodLoadVerbose += e => lines.Add((e.TimeStampRelativeMSec, $"load t{e.ThreadID} {e.OptimizationTier} {e.MethodNamespace}.{e.MethodName}"));
        source.Clr.MethodR2RGetEntryPoint += e => lines.Add((e.TimeStampRelativeMSec, $"r2r  t{e.ThreadID} {e.MethodNamespace}.{e.MethodName}"));
        source.Clr.TieredCompilationPause += e => lines.Add((e.TimeStampRelativeMSec, $"TC pause t{e.ThreadID}"));
        source.Clr.TieredCompilationResume += e => lines.Add((e.TimeStampRelativeMSec, $"TC resume t{e.ThreadID} new={e.NewMethodCount}"));
        source.Clr.TieredCompilationBackgroundJitStart += e => lines.Add((e.TimeStampRelativeMSec, $"TC bgstart t{e.ThreadID} pending={e.PendingMethodCount}"));
        source.Clr.TieredCompilationBackgroundJitStop += e => lines.Add((e.TimeStampRelativeMSec, $"TC bgstop t{e.ThreadID} pending={e.PendingMethodCount} jitted={e.JittedMethodCount}"));
        source.Dynamic.All += e =>
        {
            if (e.ProviderName != "EtwSerializerProfiler-Runs") return;
            if ((int)e.ID == 3) lines.Add((e.TimeStampRelativeMSec, $"RUN begin t{e.ThreadID}"));
            if ((int)e.ID == 4) lines.Add((e.TimeStampRelativeMSec, $"RUN end t{e.ThreadID}"));
            if ((int)e.ID == 1) lines.Add((e.TimeStampRelativeMSec, $"RUN start #{e.PayloadByName("Run")} warmup={e.PayloadByName("Warmup")}"));
        };
        source.Process();
        File.WriteAllLines(Path.Combine(folder, "timeline.txt"), lines.OrderBy(l => l.Item1).Select(l => $"{l.Item1,10:F1} {l.Item2}"));
    }
}
