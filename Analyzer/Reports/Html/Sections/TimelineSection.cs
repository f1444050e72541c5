using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports.Html.Sections;

/// <summary>
/// Every run as a bar over trace time, one row per case (serializer, operation and N), with the GC pauses marked by
/// where they fell: inside a measured run (they are in its figures), inside a warm-up run, or between runs (a row of
/// their own). Shows warm-up outliers, runs disturbed by a GC, and whether the machine was busy in between. Each bar
/// and mark names its case and run number on hover.
/// </summary>
internal sealed class TimelineSection(IReadOnlyList<RunAnalysis> runs, IReadOnlyList<Interval> pauses) : IReportSection
{
    private const string WarmupClass = "ct-neutral-warmup";
    public const string GcMeasuredSeries = "GC pause in a measured run";
    public const string GcOtherSeries = "GC pause elsewhere";
    private static readonly string GcMeasuredClass = CauseColors.ClassOf(StackTagGroups.Gc) + " gc-pauses";
    private static readonly string GcOtherClass = CauseColors.ClassOf(StackTagGroups.Gc) + " gc-pauses-other";
    private const string OutsideRuns = "(between runs)";

    public string Id => "timeline";
    public string Title => "Run timeline";
    public string? Fold => "Every run over trace time, one row per case, with GC pauses in measured runs apart from the rest";

    public void Write(HtmlWriter html, ChartSet charts)
    {
        if (runs.Count == 0)
        {
            html.Element("p", "No runs in this trace.", ("class", "muted"));
            return;
        }
        var rows = runs.OrderBy(r => r.StartMs).Select(CaseOf).Distinct().ToList();
        var labels = rows.Select(r => $"{r.Serializer} {r.Operation}{Fmt.NSuffix(r.Objects)}").ToList();
        var operations = runs.Select(r => r.Key.Operation).Distinct().OrderBy(CaseSummary.OperationOrder).ToList();
        string OpClass(string op) => ChartSpec.NeutralClass(operations.IndexOf(op));

        var series = new JsonArray();
        foreach (var op in operations)
            series.Add((JsonNode)RunSeries(op, OpClass(op), runs.Where(r => r.Key.Operation == op && !r.IsWarmup), rows));
        var warmups = runs.Where(r => r.IsWarmup).ToList();
        if (warmups.Count > 0) series.Add((JsonNode)RunSeries("warm-up", WarmupClass, warmups, rows));
        var located = pauses.Select(p => (Pause: p, Run: runs.FirstOrDefault(r => p.Overlap(r.StartMs, r.EndMs) > 0))).ToList();
        var inMeasured = located.Where(x => x.Run is { IsMeasured: true }).ToList();
        var elsewhere = located.Where(x => x.Run is not { IsMeasured: true }).ToList();
        var outside = elsewhere.Any(x => x.Run is null);
        if (outside) labels.Add(OutsideRuns);
        JsonNode Mark((Interval Pause, RunAnalysis? Run) x) => ChartSpec.Point(x.Pause.StartMs / 1000, x.Run is null ? rows.Count : rows.IndexOf(CaseOf(x.Run)),
            $"GC pause {Fmt.Ms(x.Pause.EndMs - x.Pause.StartMs)} ms at {Fmt.Num(x.Pause.StartMs / 1000, "F3")} s, "
            + (x.Run is null ? "between runs" : $"in {Describe(x.Run.Key)}{(x.Run.IsMeasured ? "" : " (warm-up or outlier: not in the figures)")}"));
        series.Add((JsonNode)ChartSpec.Series(GcOtherSeries, GcOtherClass, elsewhere.Select(Mark)));
        series.Add((JsonNode)ChartSpec.Series(GcMeasuredSeries, GcMeasuredClass, inMeasured.Select(Mark)));

        var first = Math.Min(runs.Min(r => r.StartMs), outside ? elsewhere.Where(x => x.Run is null).Min(x => x.Pause.StartMs) : double.MaxValue) / 1000;
        var last = Math.Max(runs.Max(r => r.EndMs), outside ? elsewhere.Where(x => x.Run is null).Max(x => x.Pause.EndMs) : 0) / 1000;
        var margin = Math.Max((last - first) * 0.02, 0.001);
        var ticks = Enumerable.Range(0, labels.Count).Select(i => (double)i).ToList();
        var legend = operations.Select(op => (op, OpClass(op))).ToList();
        if (warmups.Count > 0) legend.Add(("warm-up", WarmupClass));
        legend.Add((GcMeasuredSeries, GcMeasuredClass));
        legend.Add((GcOtherSeries + " (warm-up or between runs)", GcOtherClass));
        charts.Write(html, new ChartSpec
        {
            Name = "timeline",
            Kind = ChartKind.Line,
            Title = "Runs over trace time (s), one row per case",
            Data = new JsonObject { ["series"] = series },
            Options = new JsonObject
            {
                ["axisX"] = new JsonObject { ["scale"] = "auto", ["low"] = first - margin, ["high"] = last + margin, ["unit"] = " s", ["scaleMinSpace"] = 70 },
                ["axisY"] = new JsonObject
                {
                    ["scale"] = "fixed",
                    ["low"] = -0.5,
                    ["high"] = labels.Count - 0.5,
                    ["ticks"] = new JsonArray([.. ticks.Select(t => (JsonNode)t)]),
                    ["tickLabels"] = new JsonArray([.. ticks.Select(t => (JsonNode)new JsonArray(t, labels[(int)t]))]),
                    ["offset"] = RowLabels.AxisOffset(labels),
                },
                ["lineSmooth"] = "none",
                ["series"] = new JsonObject
                {
                    [GcMeasuredSeries] = new JsonObject { ["showLine"] = false },
                    [GcOtherSeries] = new JsonObject { ["showLine"] = false },
                },
                ["chartPadding"] = new JsonObject { ["right"] = 30 },
            },
            Legend = legend,
            CssClass = "timeline",
            HeightPx = 60 + 16 * labels.Count,
            Caption = $"Each bar is one run's window; hover its ends for the case, the run number and its figures. "
                + $"{inMeasured.Count} of {pauses.Count} GC pauses fell in measured runs (GC's color: they are in the figures); {elsewhere.Count} in warm-up runs or between runs (faded).",
        });
    }

    private static (string Serializer, string Operation, int Objects) CaseOf(RunAnalysis r) => (r.Key.Serializer, r.Key.Operation, r.Key.Objects);

    /// <summary>One series of runs: each run is a segment from its start to its end on its row, cut from the next by a gap.</summary>
    private static JsonObject RunSeries(string name, string cls, IEnumerable<RunAnalysis> runs, List<(string, string, int)> rows)
    {
        var points = new List<JsonNode?>();
        foreach (var r in runs.OrderBy(r => r.StartMs))
        {
            var row = rows.IndexOf(CaseOf(r));
            var meta = $"{Describe(r.Key)}{(r.IsWarmup ? " (warm-up)" : "")}: {Fmt.Ms(r.DurationMs)} ms, GC pause {Fmt.Ms(r.GcPauseMs)} ms, {r.GcCount.Total} GCs";
            points.Add(ChartSpec.Point(r.StartMs / 1000, row, meta));
            points.Add(ChartSpec.Point(r.EndMs / 1000, row, meta));
            points.Add(null);
        }
        return ChartSpec.Series(name, cls, points);
    }

    public static string Describe(RunKey k) => $"{k.Serializer} {k.Operation}{Fmt.NSuffix(k.Objects)} run {k.Run}";
}
