using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports.Html.Sections;

/// <summary>
/// Every run as a bar over trace time, one row per serializer and operation, with the GC pauses that fell inside
/// runs marked: shows warm-up outliers, runs disturbed by a GC, and whether the machine was busy in between.
/// </summary>
internal sealed class TimelineSection(IReadOnlyList<RunAnalysis> runs, IReadOnlyList<Interval> pauses) : IReportSection
{
    private const string WarmupClass = "ct-series-f";
    private const string GcClass = "ct-series-b gc-pauses";
    private const string GcSeries = "GC pause";

    public string Id => "timeline";
    public string Title => "Run timeline";

    public void Write(HtmlWriter html, ChartSet charts)
    {
        if (runs.Count == 0)
        {
            html.Element("p", "No runs in this trace.", ("class", "muted"));
            return;
        }
        var rows = runs.OrderBy(r => r.StartMs).Select(r => (r.Key.Serializer, r.Key.Operation)).Distinct().ToList();
        var labels = rows.Select(r => $"{r.Serializer} {r.Operation}").ToList();
        var operations = runs.Select(r => r.Key.Operation).Distinct().OrderBy(SerializerSummary.OperationOrder).ToList();
        string OpClass(string op) => ChartSpec.SeriesClass(operations.IndexOf(op) switch { 0 => 0, 1 => 6, 2 => 2, var i => 7 + i });

        var series = new JsonArray();
        foreach (var op in operations)
            series.Add((JsonNode)RunSeries(op, OpClass(op), runs.Where(r => r.Key.Operation == op && !r.IsWarmup), rows));
        var warmups = runs.Where(r => r.IsWarmup).ToList();
        if (warmups.Count > 0) series.Add((JsonNode)RunSeries("warm-up", WarmupClass, warmups, rows));
        var inRuns = pauses.Select(p => (Pause: p, Run: runs.FirstOrDefault(r => p.Overlap(r.StartMs, r.EndMs) > 0)))
            .Where(x => x.Run is not null).ToList();
        series.Add((JsonNode)ChartSpec.Series(GcSeries, GcClass, inRuns.Select(x => (JsonNode)ChartSpec.Point(x.Pause.StartMs / 1000, rows.IndexOf((x.Run!.Key.Serializer, x.Run.Key.Operation)),
            $"GC pause {Fmt.Ms(x.Pause.EndMs - x.Pause.StartMs)} ms at {Fmt.Num(x.Pause.StartMs / 1000, "F3")} s, in {TraceAnalyzerDescribe(x.Run.Key)}"))));

        var first = runs.Min(r => r.StartMs) / 1000;
        var last = runs.Max(r => r.EndMs) / 1000;
        var margin = Math.Max((last - first) * 0.02, 0.001);
        var ticks = Enumerable.Range(0, rows.Count).Select(i => (double)i).ToList();
        var legend = operations.Select(op => (op, OpClass(op))).ToList();
        if (warmups.Count > 0) legend.Add(("warm-up", WarmupClass));
        legend.Add(("GC pause in a run", "ct-series-b"));
        charts.Write(html, new ChartSpec
        {
            Name = "timeline",
            Kind = ChartKind.Line,
            Title = "Runs over trace time (s)",
            Data = new JsonObject { ["series"] = series },
            Options = new JsonObject
            {
                ["axisX"] = new JsonObject { ["scale"] = "auto", ["low"] = first - margin, ["high"] = last + margin, ["unit"] = " s", ["scaleMinSpace"] = 70 },
                ["axisY"] = new JsonObject
                {
                    ["scale"] = "fixed",
                    ["low"] = -0.5,
                    ["high"] = rows.Count - 0.5,
                    ["ticks"] = new JsonArray([.. ticks.Select(t => (JsonNode)t)]),
                    ["tickLabels"] = new JsonArray([.. ticks.Select(t => (JsonNode)new JsonArray(t, labels[(int)t]))]),
                    ["offset"] = RowLabels.AxisOffset(labels),
                },
                ["lineSmooth"] = "none",
                ["series"] = new JsonObject { [GcSeries] = new JsonObject { ["showLine"] = false } },
                ["chartPadding"] = new JsonObject { ["right"] = 50 },
            },
            Legend = legend,
            CssClass = "timeline",
            HeightPx = 70 + 30 * rows.Count,
            Caption = $"Each bar is one run's window (hover its ends for details); red marks are GC pauses that overlap a run ({inRuns.Count} of {pauses.Count} pauses in the trace).",
        });
    }

    /// <summary>One series of runs: each run is a segment from its start to its end on its row, cut from the next by a gap.</summary>
    private static JsonObject RunSeries(string name, string cls, IEnumerable<RunAnalysis> runs, List<(string, string)> rows)
    {
        var points = new List<JsonNode?>();
        foreach (var r in runs.OrderBy(r => r.StartMs))
        {
            var row = rows.IndexOf((r.Key.Serializer, r.Key.Operation));
            var meta = $"{TraceAnalyzerDescribe(r.Key)}{(r.IsWarmup ? " (warm-up)" : "")}: {Fmt.Ms(r.DurationMs)} ms, GC pause {Fmt.Ms(r.GcPauseMs)} ms, {r.GcCount.Total} GCs";
            points.Add(ChartSpec.Point(r.StartMs / 1000, row, meta));
            points.Add(ChartSpec.Point(r.EndMs / 1000, row, meta));
            points.Add(null);
        }
        return ChartSpec.Series(name, cls, points);
    }

    private static string TraceAnalyzerDescribe(RunKey k) => $"{k.Serializer} {k.Operation}{Fmt.NSuffix(k.Objects)} run {k.Run}";
}
