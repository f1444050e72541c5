using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.Diff;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports.Html.Sections;

/// <summary>
/// Baseline and trace duration side by side per serializer for one operation. A label marked "▲"/"▼" is a
/// significant change (Welch's test on the launches' means); unmarked bars differ within noise or could not be
/// judged (one launch on a side is never judged).
/// </summary>
internal sealed class DiffDurationSection(string operation, IReadOnlyList<RowDiff> rows) : IReportSection
{
    public string Id => "diff-" + operation;
    public string Title => $"{operation}: baseline vs trace";

    public void Write(HtmlWriter html, ChartSet charts)
    {
        var measured = rows.Where(r => r.Presence == Presence.Both).OrderBy(r => r.Objects).ThenBy(r => r.Serializer, StringComparer.Ordinal).ToList();
        foreach (var only in rows.Where(r => r.Presence != Presence.Both))
            html.Element("p", $"{only.Serializer}{(only.Objects == 0 ? "" : $" N={only.Objects}")}: only in the {(only.Presence == Presence.OnlyInBaseline ? "baseline" : "trace")}", ("class", "muted"));
        if (measured.Count == 0) return;

        var labels = measured.Select(r =>
        {
            var d = r.Metric(RowDiff.DurationMs);
            var mark = d.Noise.Significant == true ? (d.Delta > 0 ? " ▲" : " ▼") : "";
            return $"{r.Serializer}{(r.Objects == 0 ? "" : $" N={r.Objects}")}{mark}";
        }).ToList();
        JsonNode Bar(RowDiff r, int i, Func<MetricDiff, SampleStats?> side, string which)
        {
            var d = r.Metric(RowDiff.DurationMs);
            var mean = side(d)?.Mean ?? 0;
            var verdict = d.Noise.Significant switch
            {
                true => " (significant)",
                false => " (within launch noise)",
                null => d.OneLaunch ? " (1 launch per side: not judged)" : " (not judged)",
            };
            var delta = d.RelativeDelta is { } rel ? $", Δ {Fmt.Pct(rel)} of the baseline{verdict}" : "";
            return ChartSpec.Value(mean, $"{labels[i]} {which}: {Fmt.Ms(mean)} ms{delta}");
        }
        charts.Write(html, new ChartSpec
        {
            Name = Id,
            Kind = ChartKind.Bar,
            Title = $"{operation}: mean duration per operation (ms, mean of the launches' means)",
            Data = new JsonObject
            {
                ["labels"] = new JsonArray([.. labels.Select(l => (JsonNode)l)]),
                ["series"] = new JsonArray(
                    ChartSpec.Series("baseline", ChartSpec.NeutralClass(1), measured.Select((r, i) => Bar(r, i, m => m.Baseline, "baseline"))),
                    ChartSpec.Series("trace", ChartSpec.NeutralClass(0), measured.Select((r, i) => Bar(r, i, m => m.Trace, "trace")))),
            },
            Options = new JsonObject
            {
                ["horizontalBars"] = true,
                ["axisY"] = new JsonObject { ["offset"] = RowLabels.AxisOffset(labels) },
                ["axisX"] = new JsonObject { ["unit"] = " ms", ["scaleMinSpace"] = 70 },
                ["chartPadding"] = new JsonObject { ["right"] = 50 },
            },
            Legend = [("baseline", ChartSpec.NeutralClass(1)), ("trace", ChartSpec.NeutralClass(0))],
            CssClass = "bars",
            HeightPx = 80 + 44 * measured.Count,
            Caption = "▲/▼: significant change (Welch's t-test on the launches' means, per operation; with one launch on a side nothing is judged); the tables below break the change down by stack tag.",
        });
    }
}
