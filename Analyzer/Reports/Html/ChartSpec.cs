using System.Text.Json.Nodes;

namespace EtwSerializerProfiler.Analyzer.Reports.Html;

internal enum ChartKind { Bar, Line }

/// <summary>
/// One chart, as Chartist takes it: <see cref="Data"/> (labels and series) and <see cref="Options"/> are passed to
/// Chartist.Bar or Chartist.Line as they are, except for what JSON cannot say; report.js turns these axis keys into
/// Chartist objects: "scale": "fixed"|"auto"|"step" (axis type), "tickLabels": [[value, "label"], ...] and
/// "unit": " ms" (label functions), and "lineSmooth": "none" (straight lines that keep gaps).
/// Every value may carry a "meta" string: it becomes the tooltip of its bar or point.
/// </summary>
internal sealed record ChartSpec
{
    /// <summary>Stable name (e.g. "stack-tags-serialize"): tests and other reports find a chart by it.</summary>
    public required string Name { get; init; }
    public required ChartKind Kind { get; init; }
    public required string Title { get; init; }
    public required JsonObject Data { get; init; }
    public JsonObject Options { get; init; } = [];
    /// <summary>Legend entries: label and the Chartist series class that colors it (e.g. "ct-neutral-0"); never Chartist's own ct-series-a..o, whose colors are no cause's.</summary>
    public IReadOnlyList<(string Label, string SeriesClass)> Legend { get; init; } = [];
    public string? Caption { get; init; }
    /// <summary>Extra CSS class on the chart's container, for chart-specific styling (e.g. thick timeline bars).</summary>
    public string? CssClass { get; init; }
    public int HeightPx { get; init; } = 280;

    /// <summary>A grey or slate for series that are no cause (runs, sizes): the causes' colors (<see cref="CauseColors"/>) mean only them.</summary>
    public static string NeutralClass(int i) => "ct-neutral-" + (i % 3).ToString(System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>A value with a tooltip.</summary>
    public static JsonObject Value(double value, string meta) => new() { ["value"] = Round(value), ["meta"] = meta };

    /// <summary>An (x, y) point with a tooltip.</summary>
    public static JsonObject Point(double x, double y, string meta) =>
        new() { ["value"] = new JsonObject { ["x"] = Round(x), ["y"] = Round(y) }, ["meta"] = meta };

    public static JsonObject Series(string name, string seriesClass, IEnumerable<JsonNode?> values) =>
        new() { ["name"] = name, ["className"] = seriesClass, ["data"] = new JsonArray([.. values]) };

    /// <summary>Five significant digits are plenty for a chart and keep the page small.</summary>
    public static double Round(double v) => double.IsFinite(v) ? Math.Round(v, Math.Max(0, 4 - (int)Math.Floor(Math.Log10(Math.Max(Math.Abs(v), 1e-9))))) : 0;
}
