using System.Text.Json;
using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Harness;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// Issue 22's BenchmarkDotNet case: a trace written by BenchmarkDotNet's own EventPipeProfiler (0.15.8, CPU sampling)
/// of a benchmark without an N parameter (Tests/Workloads/BdnXml: XML read of a plain class), read by esp and held to
/// BenchmarkDotNet's exported full JSON report. The profiler runs in the summary's own run (performExtraBenchmarksRun:
/// false), so the report's Mean is computed from exactly the iterations in the trace. One launch, about 40 s (30 of
/// them BenchmarkDotNet building its generated project).
/// </summary>
[EndToEnd]
public sealed class BdnTraceTests(ITestOutputHelper output) : IDisposable
{
    private static readonly string WorkloadDir = Path.Combine(Repo.Root, "Tests", "Workloads", "BdnXml");
    private static readonly string WorkloadDll = Path.Combine(WorkloadDir, "bin", new DirectoryInfo(Repo.BinDir).Parent!.Name, "net10.0", "BdnXml.dll");

    private readonly string _dir = Repo.NewTempDir("bdntrace");

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }

    [Fact]
    public void A_BenchmarkDotNet_trace_reads_like_BenchmarkDotNet_and_prints_no_N_where_there_is_none()
    {
        // BenchmarkDotNet finds the benchmark's project from the working directory.
        var run = ProcessRunner.Run("dotnet", [WorkloadDll, _dir, "same-run"], TimeSpan.FromMinutes(4), WorkloadDir);
        Assert.True(run.ExitCode == 0, run.StdOut[^Math.Min(3000, run.StdOut.Length)..] + run.StdErr);
        var trace = Assert.Single(Directory.GetFiles(_dir, "*.nettrace"));
        var report = JsonNode.Parse(File.ReadAllText(Assert.Single(Directory.GetFiles(Path.Combine(_dir, "results"), "*-report-full.json"))))!;
        var bench = report["Benchmarks"]![0]!;
        var truthMeanMs = bench["Statistics"]!["Mean"]!.GetValue<double>() / 1e6;
        var truthN = bench["Statistics"]!["N"]!.GetValue<int>();
        var actualMs = bench["Measurements"]!.AsArray().Where(m => (string)m!["IterationMode"]! == "Workload" && (string)m["IterationStage"]! == "Actual")
            .Select(m => m!["Nanoseconds"]!.GetValue<double>() / 1e6).ToList();
        var actual = actualMs.Count;

        TraceAnalysis analysis;
        using (var input = TraceInput.Open(trace)) analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
        output.WriteLine(RunSourceText.Line(analysis));
        Assert.Equal(RunSource.BenchmarkDotNet, analysis.Trace.RunSource);
        var summary = Assert.Single(CaseSummary.From(analysis.Runs));
        Assert.Equal(("Read", "XmlReadSameRun", 0), (summary.Serializer, summary.Operation, summary.Objects));

        // The same iterations, in the same order, as its report.
        var measured = analysis.Runs.Where(r => r.Stage is "workload actual" or "workload actual (upper outlier)").ToList();
        Assert.Equal(actual, measured.Count);
        Assert.Equal(measured.Count(r => r.IsOutlier), analysis.Trace.HarnessOutliers);
        Assert.Equal(measured.Count - analysis.Trace.HarnessOutliers, summary.Runs);

        // esp's windows are BenchmarkDotNet's iterations: each within 10% of BenchmarkDotNet's own time for it, but
        // one (the windows are the iteration events around its clock reads, so a thread preempted while writing one
        // moves that iteration by a few %).
        var off = Enumerable.Range(0, actual).Where(i => Math.Abs(measured[i].DurationMs / actualMs[i] - 1) > 0.10).ToList();
        Assert.True(off.Count <= 1, "windows off BenchmarkDotNet's times by more than 10%: " + string.Join(", ", off.Select(i => $"{i}: {measured[i].DurationMs:F4} vs {actualMs[i]:F4} ms")));
        // BenchmarkDotNet's outlier rule (upper fence Q3 + 1.5 IQR), which esp applies to its own windows: on
        // BenchmarkDotNet's own times it drops as many as its report (within 2% of the fence, where quantile
        // estimators can differ), and esp drops the same iterations but at most one (a loaded CI run once dropped 1
        // of 15 that BenchmarkDotNet kept: a window moved across the fence).
        var truthFence = BdnStatistics.UpperFence(actualMs);
        Assert.InRange(actual - truthN, actualMs.Count(v => v > truthFence * 1.02), actualMs.Count(v => v > truthFence * 0.98));
        var disagree = Enumerable.Range(0, actual).Where(i => measured[i].IsOutlier != actualMs[i] > truthFence).ToList();
        Assert.True(disagree.Count <= 1, "esp and BenchmarkDotNet's rule drop different iterations: " + string.Join(", ", disagree.Select(i => $"{i}: esp {measured[i].DurationMs:F4} ms (outlier {measured[i].IsOutlier}), BenchmarkDotNet {actualMs[i]:F4} ms (fence {truthFence:F4})")));
        Assert.InRange(summary.Runs, truthN - 1, truthN + 1);

        // Its Mean within 5% (measured: 0.844 vs 0.8438 ms, ratio 1.000), and esp's mean within 5% of BenchmarkDotNet's
        // times of the iterations esp averaged (where the two dropped different ones).
        output.WriteLine($"esp {summary.MeanDurationMs:F4} ms/op over {summary.Runs}; BenchmarkDotNet {truthMeanMs:F4} ms/op over {truthN}");
        var sameIterations = Enumerable.Range(0, actual).Where(i => !measured[i].IsOutlier).Average(i => actualMs[i] / measured[i].Operations);
        Assert.InRange(summary.MeanDurationMs / sameIterations, 0.95, 1.05);
        if (summary.Runs == truthN) Assert.InRange(summary.MeanDurationMs / truthMeanMs, 0.95, 1.05);

        // No N anywhere: the case has none.
        foreach (var format in new[] { TableFormat.Text, TableFormat.Markdown, TableFormat.Csv })
        {
            var text = AnalysisReport.Render(analysis, format);
            Assert.DoesNotContain("N=0", text);
            Assert.DoesNotContain("N=", string.Join('\n', analysis.Findings.Select(f => f.Message)));
        }
        var table = AnalysisReport.Render(analysis, TableFormat.Text).Split('\n');
        // The table's row (the verdict's head line above it starts "Read XmlReadSameRun: ...").
        Assert.Matches(@"^Read\s+-\s+" + summary.Runs + @"\s", table.First(l => l.StartsWith("Read ", StringComparison.Ordinal) && !l.Contains(':', StringComparison.Ordinal)));
        var json = AnalysisReport.Json(analysis);
        Assert.Null(json["serializers"]![0]!["objects"]);

        // BenchmarkDotNet's own results sit beside the trace: the traced run's mean is printed against its summary's,
        // read from the report (here the same run, so within the 5% above).
        var beside = Assert.Single(BdnSummaryReader.Of(analysis));
        Assert.Equal(truthMeanMs, beside.SummaryMs, 9);
        Assert.Equal(summary.MeanDurationMs, beside.TracedMs, 9);
        Assert.Contains(beside.Line(), AnalysisReport.Render(analysis, TableFormat.Text), StringComparison.Ordinal);
        Assert.Equal(truthMeanMs, json["trace"]!["benchmarkDotNetSummary"]![0]!["summaryMs"]!.GetValue<double>(), 9);
        Assert.All(json["runs"]!.AsArray(), r => Assert.Null(r!["objects"]));
        Assert.All(analysis.Findings, f => Assert.Null(f.Objects));
        if (analysis.Trace.HarnessOutliers > 0) Assert.Contains($"{analysis.Trace.HarnessOutliers} upper outlier(s)", RunSourceText.Line(analysis));
        var html = Path.Combine(_dir, "report.html");
        Assert.Equal(0, Robustness.InProcessEsp.Run(TimeSpan.FromMinutes(2), "analyze", trace, "--html", html).ExitCode);
        Assert.DoesNotContain("N=0", File.ReadAllText(html));
    }
}
