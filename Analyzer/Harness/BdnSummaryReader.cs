using System.Globalization;
using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Harness;

/// <summary>
/// A BenchmarkDotNet trace whose artifacts folder still holds BenchmarkDotNet's own results (results/*-report-full.json
/// beside the trace or one folder up): per benchmark, the traced run's mean per operation against the summary's.
/// BenchmarkDotNet's profilers trace an extra run by default, which tracing slows (measured +13% on an XML read), so
/// the trace describes a slower run than the summary's; the line says by how much.
/// </summary>
internal static class BdnSummaryReader
{
    /// <summary>One per benchmark found in both; empty without a BenchmarkDotNet trace or its report.</summary>
    public static IReadOnlyList<BdnSummaryComparison> Of(TraceAnalysis analysis)
    {
        if (analysis.Trace.RunSource != RunSource.BenchmarkDotNet) return [];
        var summaries = analysis.Cases.Where(s => s.Runs > 0)
            .ToDictionary(s => (s.Serializer, s.Operation, s.Objects));
        var found = new List<BdnSummaryComparison>();
        foreach (var report in Reports(analysis.Trace.Path))
        {
            JsonNode? root;
            try { root = JsonNode.Parse(File.ReadAllText(report)); }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or System.Text.Json.JsonException) { continue; }
            foreach (var bench in root?["Benchmarks"]?.AsArray() ?? [])
            {
                if (bench?["FullName"]?.GetValue<string>() is not { } fullName || bench["Statistics"]?["Mean"] is not JsonValue mean) continue;
                var key = BdnBenchmarkName.Parse(fullName).Identity();
                if (summaries.TryGetValue(key, out var s) && mean.GetValue<double>() is > 0 and var ns)
                    found.Add(new BdnSummaryComparison(key.Serializer, key.Operation, key.Objects, s.MeanDurationMs, ns / 1e6));
            }
        }
        return found;
    }

    private static IEnumerable<string> Reports(string tracePath)
    {
        var dir = Directory.Exists(tracePath) ? tracePath : Path.GetDirectoryName(Path.GetFullPath(tracePath));
        for (var i = 0; i < 2 && dir is not null; i++, dir = Path.GetDirectoryName(dir))
        {
            var results = Path.Combine(dir, "results");
            if (!Directory.Exists(results)) continue;
            var reports = Directory.GetFiles(results, "*-report-full.json");
            if (reports.Length > 0) return reports.Order(StringComparer.Ordinal);
        }
        return [];
    }
}
