using System.Text.Json;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// A BenchmarkDotNet run recorded as a user would: `esp record -- dotnet BdnComparison.dll run --inprocess ...`
/// (scripts/measure/BdnComparison, BenchmarkDotNet 0.14.0, a tiny job). Its engine events become per-benchmark runs, held to
/// what BenchmarkDotNet itself exported for the same launch: iteration counts, operations, each measured iteration
/// and the mean per operation.
/// </summary>
[EndToEnd]
public sealed class BdnRunsTests(ITestOutputHelper output) : IDisposable
{
    private static readonly string BdnComparisonDll = Path.Combine(Repo.Root, "scripts", "measure", "BdnComparison", "bin",
        new DirectoryInfo(Repo.BinDir).Parent!.Name, "net10.0", "BdnComparison.dll");

    private readonly string _dir = Repo.NewTempDir("bdnruns");

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }

    // What BdnComparison exports per case (scripts/measure/BdnComparison/BdnResults.cs), read here without referencing it.
    private sealed record BdnCase(string Serializer, int Objects, double MeanMs, long OperationsPerIteration, int MeasuredIterations, int WorkloadIterations, List<double> ActualMs, List<double> ResultMs);

    private sealed record BdnFile(List<BdnCase> Cases, List<string> Errors);

    [Fact]
    public void BenchmarkDotNet_iterations_are_runs_per_benchmark_held_to_its_own_results()
    {
        var json = Path.Combine(_dir, "bdn.json");
        var (exit, folder) = Recording.Record(Path.Combine(_dir, "trace"), "--", "dotnet", BdnComparisonDll, "run", "--inprocess",
            "--serializers", "Reflection,System.Text.Json", "--test", "serialize", "--n", "100",
            "--warmup-count", "2", "--iteration-count", "5", "--iteration-time-ms", "20", "--json", json, "--artifacts", Path.Combine(_dir, "artifacts"));
        Assert.Equal(0, exit);
        var bdn = JsonSerializer.Deserialize<BdnFile>(File.ReadAllText(json), new JsonSerializerOptions(JsonSerializerDefaults.Web))!;
        Assert.Empty(bdn.Errors);
        Assert.Equal(2, bdn.Cases.Count);

        TraceAnalysis analysis;
        using (var input = TraceInput.Open(folder.Path)) analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
        output.WriteLine(RunSourceText.Line(analysis));
        Assert.Equal(RunSource.BenchmarkDotNet, analysis.Trace.RunSource);
        Assert.True(analysis.Trace.HarnessOverheadIterations > 0);
        var summaries = CaseSummary.From(analysis.Runs);
        Assert.Equal(2, summaries.Count);

        foreach (var truth in bdn.Cases)
        {
            // The case's name as BenchmarkDotNet writes it: one table per benchmark type, a row per method and parameters, N from N.
            var name = $"Serialize(Serializer: \"{truth.Serializer}\", Data: BookShelf)";
            var runs = analysis.Runs.Where(r => r.Key.Serializer == name).OrderBy(r => r.StartMs).ToList();
            Assert.All(runs, r => Assert.True((r.Key.Operation, r.Key.Objects) == ("SerializerBenchmarks", truth.Objects), $"{r.Key}"));
            var measured = runs.Where(r => !r.IsWarmup).ToList();
            // BenchmarkDotNet's report keeps only the chosen engine's jitting iterations; the events show all (1 to 3).
            Assert.Equal(truth.WorkloadIterations, runs.Count(r => r.Stage != "workload jitting"));
            Assert.InRange(runs.Count(r => r.Stage == "workload jitting"), 1, 3);
            Assert.Equal(truth.MeasuredIterations, measured.Count);
            Assert.All(measured, r => Assert.Equal(truth.OperationsPerIteration, r.Operations));
            Assert.All(measured, r => Assert.Equal(r.IsOutlier ? "workload actual (upper outlier)" : "workload actual", r.Stage));
            // BenchmarkDotNet's outlier rule on the windows drops what it dropped on its clock (1 of 5 seen, 0 of 5 seen),
            // give or take the one iteration next to the fence: the windows enclose its clock reads, and an event written
            // late moves an iteration (one clean-clone CI run: a window 3.3% over its clock, 1 outlier against BDN's 0).
            Assert.InRange(measured.Count(r => r.IsOutlier), truth.MeasuredIterations - truth.ResultMs.Count - 1, truth.MeasuredIterations - truth.ResultMs.Count + 1);
            Assert.All(runs.Where(r => r.IsWarmup), r => Assert.Contains(r.Stage, new[] { "workload jitting", "workload pilot", "workload warm-up" }));

            // Each measured iteration: the events enclose the engine's clock reads, so the window is never shorter;
            // writing an event takes microseconds, unless the thread is preempted right then (+16% once, measured on
            // a 28 ms iteration with the machine at load average 6-7): the median within 5%.
            var ratios = measured.Zip(truth.ActualMs, (r, ms) => r.DurationMs / r.Operations / ms).ToList();
            output.WriteLine($"{truth.Serializer}: window / clock per iteration {string.Join(", ", ratios.Select(x => x.ToString("F3")))}");
            Assert.All(ratios, x => Assert.True(x > 0.99, $"{truth.Serializer}: a window shorter than BenchmarkDotNet's clock ({x:F3})"));
            Assert.True(ratios.Order().ElementAt(ratios.Count / 2) < 1.05, $"{truth.Serializer}: median window / clock {ratios.Order().ElementAt(ratios.Count / 2):F3}");

            // The mean per operation against BenchmarkDotNet's Mean: the analyzer applies its rule (upper outliers out,
            // the median overhead iteration subtracted) to the same iterations, so the two differ only by the windows
            // around its clock reads (the preempted write above moves a mean of five by 3%). Before the rule: 1.00
            // and 1.04 measured, 1.23 with one 194 us iteration of five that BenchmarkDotNet dropped.
            // When the outlier rule on the windows moved the iteration next to the fence (allowed above), BenchmarkDotNet's
            // Mean averages another set of iterations (one clean-clone CI run: 4 of 5 against its 5, 0.925 of its Mean):
            // the like-for-like truth is then its own clock over the iterations the analyzer kept (its overhead, tens of
            // ns per operation against ~100 us, left in).
            var mean = summaries.Single(s => s.Serializer == name).MeanDurationMs;
            var sameSet = measured.Count(r => r.IsOutlier) == truth.MeasuredIterations - truth.ResultMs.Count;
            var kept = measured.Zip(truth.ActualMs, (r, ms) => (r, ms)).Where(p => !p.r.IsOutlier).Select(p => p.ms).ToList();
            var expected = sameSet ? truth.MeanMs : kept.Average();
            // An event written late (the thread preempted between BenchmarkDotNet's clock read and the write, with
            // both cores busy) lengthens its window, and the mean by that much: one clean-clone CI run had windows of
            // 2.13 and 1.33 times their clock in two of five iterations, the others 1.00-1.01, and a mean 1.21 times
            // BenchmarkDotNet's. The windows' lateness over the kept iterations is measured here, against the same
            // clock, so the bound widens by what this run's events show and no more.
            var keptPairs = measured.Zip(truth.ActualMs, (r, ms) => (Window: r.DurationMs / r.Operations, Clock: ms)).Where((p, i) => !measured[i].IsOutlier).ToList();
            var lateness = keptPairs.Sum(p => p.Window) / keptPairs.Sum(p => p.Clock);
            output.WriteLine($"{truth.Serializer}: mean {mean * 1000:F2} us/op; BenchmarkDotNet: its iterations {truth.ActualMs.Average() * 1000:F2}, its Mean {truth.MeanMs * 1000:F2} us/op{(sameSet ? "" : $", its clock over the kept iterations {expected * 1000:F2}")}; kept windows / clock {lateness:F3}");
            Assert.InRange(mean / expected, 0.99, Math.Max(1.10, lateness * 1.03));
        }
    }
}
