using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// The run provider enabled by bare name in dotnet-trace (`--providers ...,EtwSerializerProfiler-Runs`): dotnet-trace
/// 10 then enables none of its events, so the trace has the marker's waits but no run names. The analyzer finds the
/// runs from the waits, names each from its samples' Serialize\X / Deserialize\X tags and infers the warm-ups from
/// the benchmark's batches; all of it is held to the benchmark's own results.json of the same recording.
/// </summary>
[EndToEnd]
public sealed class UnnamedRunsTests(ITestOutputHelper output) : IDisposable
{
    private readonly string _dir = Repo.NewTempDir("unnamed");

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }

    [Fact]
    public void Runs_of_a_bare_name_trace_are_named_and_their_warmups_inferred_as_the_benchmark_ran_them()
    {
        var trace = Path.Combine(_dir, "bare.nettrace");
        var results = Path.Combine(_dir, "results.json");
        // The automatic warm-up (the default): serialize and deserialize warm up in turn, then each case's last
        // warm-up run and its measured runs; the batches the inference must read.
        string[] args = ["collect", "-o", trace, "--providers", "Microsoft-DotNETCore-SampleProfiler,Microsoft-Windows-DotNETRuntime:0x4000000C019:5,EtwSerializerProfiler-Runs",
            "--", "dotnet", Repo.BenchmarkDll, "--n", "1000", "--runs", "3", "--serializers", "System.Text.Json,Reflection", "--json", results, "--quiet"];
        var r = ProcessRunner.Run(DotnetTraceTool.Path(output), args, TimeSpan.FromMinutes(3));
        Assert.True(r.ExitCode == 0, $"dotnet-trace: {r.StdOut} {r.StdErr}");

        TraceAnalysis analysis;
        using (var input = TraceInput.Open(trace)) analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
        var truth = BenchmarkResults.Load(results).Runs; // in the order they ran
        var runs = analysis.Runs.OrderBy(x => x.StartMs).ToList();

        Assert.Equal(RunSource.MarkerWaits, analysis.Trace.RunSource);
        var inferred = Assert.IsType<InferredRunNames>(analysis.Trace.InferredNames);
        output.WriteLine($"{inferred}; {RunSourceText.Line(analysis)}");
        Assert.Equal(3, inferred.MeasuredPerCase);
        Assert.Equal(0, inferred.Unnamed);
        Assert.True(truth.Count == runs.Count, $"{runs.Count} runs found, {truth.Count} ran; {analysis.Trace.EventsLost} events lost; warnings: {string.Join(" | ", analysis.Warnings)}; "
            + $"found (start ms, duration ms): {string.Join(", ", runs.Select(x => $"{x.StartMs:F1}+{x.DurationMs:F2}"))}; ran (ms): {string.Join(", ", truth.Select(t => $"{t.Serializer[0]}{t.Operation[0]}{t.DurationMs:F2}"))}");
        for (var i = 0; i < runs.Count; i++)
        {
            var (run, t) = (runs[i], truth[i]);
            Assert.True((run.Key.Serializer, run.Key.Operation, run.IsWarmup) == (t.Serializer, t.Operation, t.Warmup),
                $"run {i}: inferred {run.Key.Serializer} {run.Key.Operation} warm-up {run.IsWarmup}, truth {t.Serializer} {t.Operation} run {t.Run} warm-up {t.Warmup}");
        }

        // The measured windows are the marker's waits, whose wake-up lags the Stopwatch on a busy machine (up to 95% of
        // a 12 ms run at load average 15, the median 0.6%), and whose start can lag too when the marker thread is
        // preempted between its handshake and its wait (17.3 ms for a 20.6 ms run at load average 22): the median within
        // 25%, and no more than one run in ten shorter than 3/4 of its Stopwatch.
        var measured = runs.Zip(truth).Where(p => !p.Second.Warmup).ToList();
        var ratios = measured.Select(p => p.First.DurationMs / p.Second.DurationMs).Order().ToList();
        var detail = string.Join(", ", measured.Select(p => $"{p.First.DurationMs:F2}/{p.Second.DurationMs:F2}"));
        Assert.True(ratios.Count(x => x < 0.75) <= Math.Max(1, ratios.Count / 10), $"windows / Stopwatch ms: {detail}");
        Assert.True(ratios[ratios.Count / 2] is > 0.75 and < 1.25, $"median window / Stopwatch {ratios[ratios.Count / 2]:F2}: {detail}");
    }
}
