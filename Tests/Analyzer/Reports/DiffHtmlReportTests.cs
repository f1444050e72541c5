using AngleSharp.Html.Parser;
using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Analyzer.Diff;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports.Html;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>`esp diff --html`: the comparison page is valid, self-contained, and marks what changed beyond noise.</summary>
public sealed class DiffHtmlReportTests
{
    private static RunAnalysis Run(string serializer, int run, double ms)
    {
        var r = new RunDraft { Key = new RunKey(serializer, "deserialize", 1000, run), StartMs = 100 * run, EndMs = 100 * run + ms };
        r.TagTable[@"Deserialize\" + serializer] = ms;
        return r.Freeze();
    }

    [Fact]
    public void The_diff_page_is_strict_html_with_both_sides_charted_and_significant_changes_marked()
    {
        DiffSide Side(string path) => new(path, ".NET 10.0", [], new Dictionary<string, string>(), []);
        var baseline = new[] { 20.0, 20.5, 19.5, 20.2 }.Select((ms, i) => Run("System.Text.Json", i + 1, ms))
            .Concat(new[] { 1.0, 1.1, 0.9, 1.0 }.Select((ms, i) => Run("Google.Protobuf", i + 1, ms))).ToList();
        var trace = new[] { 50.0, 50.5, 49.5, 50.2 }.Select((ms, i) => Run("System.Text.Json", i + 1, ms))
            .Concat(new[] { 1.0, 0.9, 1.1, 1.0 }.Select((ms, i) => Run("Google.Protobuf", i + 1, ms)))
            .Append(Run("Newtonsoft.Json", 1, 30)).ToList();
        // Each run number its own launch: significance is judged on launch means.
        static IReadOnlyList<IEnumerable<RunAnalysis>> Launches(List<RunAnalysis> runs) => [.. runs.GroupBy(r => r.Key.Run).Select(g => g.AsEnumerable())];
        DiffSide Sides(string path, int count) => Side(path) with { Launches = [.. Enumerable.Range(1, count).Select(i => $"{path}-{i}")] };
        var diff = TraceDiffer.CompareLaunches(Sides("emit", 4), Launches(baseline), Sides("reflection", 4), Launches(trace));

        var html = DiffHtmlReport.Render(diff);
        var doc = new HtmlParser(new HtmlParserOptions { IsStrictMode = true }).ParseDocument(html);
        var chart = doc.QuerySelector("#diff-deserialize");
        Assert.NotNull(chart);
        var charts = System.Text.Json.JsonDocument.Parse(doc.QuerySelector("#report-charts")!.TextContent).RootElement;
        var spec = charts.EnumerateArray().Single(c => c.GetProperty("name").GetString() == "diff-deserialize");
        var labels = spec.GetProperty("data").GetProperty("labels").EnumerateArray().Select(l => l.GetString()).ToList();
        Assert.Contains("System.Text.Json N=1000 ▲", labels); // 20 → 50 ms is far beyond noise
        Assert.Contains("Google.Protobuf N=1000", labels);    // unchanged within noise: unmarked
        Assert.Equal(2, spec.GetProperty("data").GetProperty("series").GetArrayLength());
        Assert.Contains("Newtonsoft.Json N=1000: only in the trace", doc.Body!.TextContent, StringComparison.Ordinal); // listed, not dropped
        Assert.Empty(doc.QuerySelectorAll("script[src], link[href], img[src], iframe")); // nothing loaded from elsewhere

        // One launch per side: the same 20 → 50 ms is not marked, and the bar says why.
        var one = DiffHtmlReport.Render(TraceDiffer.Compute(Side("emit"), baseline, Side("reflection"), trace));
        Assert.DoesNotContain("N=1000 ▲", one, StringComparison.Ordinal);
        Assert.Contains("1 launch per side: not judged", one, StringComparison.Ordinal);
    }
}
