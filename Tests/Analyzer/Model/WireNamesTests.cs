using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Analyzer.Reports.Html;
using EtwSerializerProfiler.Analyzer.Reports.Html.Sections;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Analyzer.Findings;

namespace EtwSerializerProfiler.Tests.Analyzer.Model;

/// <summary>
/// Enums written by their [WireName], one mapping for every format: a BenchmarkDotNet iteration's window used to be
/// "run-events" in CSV and "harness-events" in JSON.
/// </summary>
public sealed class WireNamesTests
{
    [Fact]
    public void Every_member_has_its_own_wire_name()
    {
        Assert.Equal(["marker-wait", "run-events", "harness-events"], WireNames.All<WindowSource>());
        Assert.Equal(["none", "run-events", "marker-waits", "benchmarkdotnet"], WireNames.All<RunSource>());
        Assert.Equal(["unknown", "tier0", "instrumented", "osr", "tier1", "optimized", "minopts", "readyToRun"], WireNames.All<CodeTier>());
        Assert.Equal(["info", "warning", "critical"], WireNames.All<FindingSeverity>());
        Assert.Equal(["both", "onlyInBaseline", "onlyInTrace"], WireNames.All<EtwSerializerProfiler.Analyzer.Diff.Presence>());
        Assert.Equal(7, WireNames.All<OffCpuReason>().Distinct().Count());
        Assert.Equal(["background GC", "JIT (tiering)", "finalizer", "tracer", "other"], WireNames.All<ThreadRole>());
        // Both kernel samplers are "kernel" on purpose: the figure means on-CPU time either way (CpuSourceKind's summary).
        Assert.Equal(["eventpipe", "kernel", "kernel"], WireNames.All<CpuSourceKind>());
    }

    /// <summary>Every enum of the analysis model and the diff is written somewhere: each is written by its wire name, so each member has one.</summary>
    [Fact]
    public void Every_enum_the_outputs_write_has_a_wire_name_on_every_member()
    {
        var written = typeof(TraceAnalysis).Assembly.GetTypes()
            .Where(t => t.IsEnum && t.IsPublic && t.Namespace is "EtwSerializerProfiler.Analyzer.Model" or "EtwSerializerProfiler.Analyzer.Diff").ToList();
        Assert.Equal(["CodeTier", "CpuSourceKind", "FindingSeverity", "OffCpuReason", "Presence", "RunSource", "ThreadRole", "WindowSource"], written.Select(t => t.Name).Order(StringComparer.Ordinal));
        foreach (var e in written)
            foreach (var member in e.GetFields(System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.Static))
                Assert.True(member.GetCustomAttributes(typeof(WireNameAttribute), false).Length == 1, $"{e.Name}.{member.Name} has no [WireName]");
    }

    private static TraceAnalysis OneRunPerSource()
    {
        var analysis = SyntheticRuns.Analysis(Enum.GetValues<WindowSource>().Select((source, i) =>
            SyntheticRuns.Run("S", "deserialize", 10, i, 1.0, set: r => r.Source = source)));
        return analysis with { Trace = analysis.Trace with { RunSource = RunSource.BenchmarkDotNet } };
    }

    [Fact]
    public void Csv_json_text_and_html_write_each_window_source_by_its_wire_name()
    {
        var analysis = OneRunPerSource();
        var expected = WireNames.All<WindowSource>();

        var csv = AnalysisReport.Render(analysis, TableFormat.Csv).Split('\n').Skip(1).Where(l => l.Length > 0).ToList();
        Assert.Equal(expected, csv.Select(l => l.Split(',')[6]));

        var json = JsonNode.Parse(AnalysisReport.Render(analysis, TableFormat.Json))!;
        Assert.Equal(expected, json["runs"]!.AsArray().Select(r => (string)r!["window"]!));
        Assert.Equal("benchmarkdotnet", (string)json["trace"]!["runSource"]!);

        var text = PlainText.Table(AnalysisReport.RunsTable(analysis));
        foreach (var name in expected) Assert.Contains($" {name} ", text, StringComparison.Ordinal);

        var html = new HtmlWriter();
        new TablesSection("t", "T", [], [AnalysisReport.RunsTable(analysis)]).Write(html, new ChartSet());
        foreach (var name in expected) Assert.Contains($">{name}<", html.ToString(), StringComparison.Ordinal);
    }
}
