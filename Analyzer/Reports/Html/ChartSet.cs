using System.Text.Json.Nodes;

namespace EtwSerializerProfiler.Analyzer.Reports.Html;

/// <summary>The charts of one page: sections place a chart's container where they want it, the page writes them all out as JSON for report.js.</summary>
internal sealed class ChartSet
{
    private readonly List<(string Id, ChartSpec Spec)> _charts = [];

    public IReadOnlyList<ChartSpec> Charts => [.. _charts.Select(c => c.Spec)];

    public void Write(HtmlWriter html, ChartSpec spec)
    {
        if (_charts.Any(c => c.Spec.Name == spec.Name)) throw new ArgumentException($"two charts named {spec.Name}", nameof(spec));
        var id = "chart-" + (_charts.Count + 1).ToString(System.Globalization.CultureInfo.InvariantCulture);
        _charts.Add((id, spec));
        using (html.Block("figure", ("class", "chart-figure"), ("data-chart", spec.Name)))
        {
            html.Element("figcaption", spec.Title);
            if (spec.Legend.Count > 0)
                using (html.Block("ul", ("class", "legend")))
                    foreach (var (label, cls) in spec.Legend)
                        using (html.Block("li", ("class", cls)))
                            html.Element("span", "", ("class", "swatch")).Text(label);
            // The container is empty until report.js draws into it; without JavaScript the tables below still tell.
            html.Element("div", "", ("id", id), ("class", "chart " + (spec.CssClass ?? "")), ("style", $"height: {spec.HeightPx}px"));
            if (spec.Caption is not null) html.Element("p", spec.Caption, ("class", "caption"));
        }
        html.Line();
    }

    public JsonArray ToJson() => new([.. _charts.Select(c => (JsonNode)new JsonObject
    {
        ["id"] = c.Id,
        ["name"] = c.Spec.Name,
        ["kind"] = c.Spec.Kind == ChartKind.Bar ? "bar" : "line",
        ["data"] = TopDown(c.Spec),
        ["options"] = WithHeight(c.Spec),
    })]);

    /// <summary>
    /// Chartist draws a horizontal bar chart's first label at the bottom; rows here read top-down like the tables,
    /// so they are reversed. Chartist's own reverseData option is not used: it reverses the arrays it was given in
    /// place, on every redraw, and its colors then drift from the series they belong to.
    /// </summary>
    private static JsonNode TopDown(ChartSpec spec)
    {
        var data = (JsonObject)spec.Data.DeepClone();
        if (spec.Options["horizontalBars"]?.GetValue<bool>() != true) return data;
        if (data["labels"] is JsonArray labels) data["labels"] = Reversed(labels);
        if (data["series"] is JsonArray series)
            foreach (var s in series.OfType<JsonObject>())
                if (s["data"] is JsonArray values) s["data"] = Reversed(values);
        return data;
    }

    private static JsonArray Reversed(JsonArray array) => new([.. array.Reverse().Select(n => n?.DeepClone())]);

    private static JsonNode WithHeight(ChartSpec spec)
    {
        var options = (JsonObject)spec.Options.DeepClone();
        options["height"] = $"{spec.HeightPx}px";
        return options;
    }
}
