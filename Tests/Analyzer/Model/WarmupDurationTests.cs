using System.IO.Compression;
using System.Text.Json.Nodes;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Model;

/// <summary>
/// JSON <c>serializers[].warmupDurationMs</c> is the whole warm-up, held to the benchmark's own clock of it
/// (results.json <c>warmups[].warmupMs</c>, which brackets the warm-up runs from just outside their windows):
/// it spans every warm-up run, so it is at least their summed durations, and at most the benchmark's bracket.
/// The golden outputs are the analyzer's output on these recordings (GoldenAnalysisTests holds them equal).
/// </summary>
public sealed class WarmupDurationTests
{
    [Theory]
    [InlineData("kernel-session")]
    [InlineData("eventpipe-only")]
    public void Warmup_duration_spans_every_warmup_run_within_the_benchmarks_clock(string recording)
    {
        JsonNode results;
        using (var zip = ZipFile.OpenRead(Repo.Golden(recording + ".zip")))
        using (var stream = zip.GetEntry("results.json")!.Open())
            results = JsonNode.Parse(stream)!;
        var analysis = JsonNode.Parse(File.ReadAllText(Repo.Golden(recording + ".json")))!;
        var checkedCases = 0;
        foreach (var s in analysis["serializers"]!.AsArray())
        {
            var (serializer, operation, objects) = ((string)s!["serializer"]!, (string)s["operation"]!, (int)s["objects"]!);
            bool Same(JsonNode? r) => (string)r!["serializer"]! == serializer && (string)r["operation"]! == operation && (int)r["objects"]! == objects;
            var truth = results["warmups"]!.AsArray().Single(Same)!;
            var warmRuns = results["runs"]!.AsArray().Where(r => Same(r) && (bool)r!["warmup"]!).ToList();
            Assert.Equal((int)truth["warmupRuns"]!, (int)s["warmupRuns"]!);
            var span = (double)s["warmupDurationMs"]!;
            var runsMs = warmRuns.Sum(r => (double)r!["durationMs"]!);
            var bracketMs = (double)truth["warmupMs"]!;
            Assert.True(span >= runsMs * 0.99, $"{serializer} {operation} N={objects}: warm-up {span:F2} ms is shorter than its {warmRuns.Count} runs ({runsMs:F2} ms)");
            Assert.True(span <= bracketMs * 1.01 + 0.05, $"{serializer} {operation} N={objects}: warm-up {span:F2} ms is longer than the benchmark's clock of it ({bracketMs:F2} ms)");
            checkedCases++;
        }
        Assert.True(checkedCases >= 6, $"only {checkedCases} cases checked");
    }
}
