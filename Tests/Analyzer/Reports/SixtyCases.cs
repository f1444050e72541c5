using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Reports.Html;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>
/// The default benchmark's size without recording it: 60 cases (2 operations, 2 N, 15 serializers, the longest name 26
/// characters), made of the kernel-session golden recording's 6 real cases under 10 names and N, each with a tracing
/// cost. Analyzed once for every test that reads it; its HTML page has no call trees (the copies have no samples).
/// </summary>
public static class SixtyCases
{
    private static readonly Lazy<TraceAnalysis> Analysis = new(Make);
    private static readonly Lazy<(string Path, string Html)> Page = new(() =>
    {
        var path = Path.Combine(Repo.NewTempDir("sixty-page"), "report.html");
        var html = AnalysisHtmlReport.Render(Model, RunStackCollector.Collect(Model), path);
        File.WriteAllText(path, html);
        return (path, html);
    });

    public static TraceAnalysis Model => Analysis.Value;

    /// <summary>The page `esp analyze --html` writes for it, on disk.</summary>
    public static (string Path, string Html) HtmlPage => Page.Value;

    private static TraceAnalysis Make()
    {
        var dir = Repo.NewTempDir("sixty");
        try
        {
            var zip = Repo.CopyGoldenRecording("kernel-session", dir);
            using var input = TraceInput.Open(zip);
            var a = new TraceAnalyzer(new AnalyzerOptions { CacheEtlx = false }).Analyze(input);
            string[] suffixes = ["", ".SourceGen", ".B", ".C", ".D"];
            var copies = suffixes.SelectMany(s => new[] { 100, 10_000 }.Select(n => (Suffix: s, N: n))).ToList();
            var cases = a.Runs.Select(r => (r.Key.Serializer, r.Key.Operation)).Distinct().ToList();
            return a with
            {
                Runs = [.. copies.SelectMany(c => a.Runs.Select(r => r with { Key = r.Key with { Serializer = r.Key.Serializer + c.Suffix, Objects = c.N } }))],
                TagSites = copies.SelectMany(c => a.TagSites.Select(t => KeyValuePair.Create((t.Key.Serializer + c.Suffix, t.Key.Operation, c.N), t.Value))).ToDictionary(),
                Findings = [.. a.Findings.Where(f => f.Serializer is null)
                    .Concat(copies.SelectMany(c => a.Findings.Where(f => f.Serializer is not null).Select(f => f with { Serializer = f.Serializer + c.Suffix, Objects = f.Objects is null ? null : c.N })))
                    .OrderByDescending(f => f.Severity)],
                TracingCost = copies.SelectMany(c => cases.Select((k, i) => KeyValuePair.Create((k.Serializer + c.Suffix, k.Operation, c.N),
                    new TracingCostEstimate(1.5 + i, -2, 9, 12, 12) { Cpu = new TracingCostEstimate(0.5 + i, -1.5, 4, 12, 12) }))).ToDictionary(),
            };
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }
}
