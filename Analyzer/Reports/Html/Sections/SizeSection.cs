using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports.Html.Sections;

/// <summary>Serialized size per serializer, from the benchmark's results.json next to the trace.</summary>
internal sealed class SizeSection(IReadOnlyList<CaseSummary> summaries) : IReportSection
{
    public string Id => "size";
    public string Title => "Serialized size";
    public string? Fold => "Bytes per serialized payload, per serializer and N";

    public void Write(HtmlWriter html, ChartSet charts)
    {
        // Size is a property of the payload, the same for both operations: one row per serializer and N.
        var rows = summaries.Where(s => s.SizeBytes is > 0)
            .GroupBy(s => (s.Serializer, s.Objects)).Select(g => g.First())
            .OrderBy(s => s.Objects).ThenBy(s => s.SizeBytes).ToList();
        if (rows.Count == 0)
        {
            html.Element("p", "No serialized sizes: the trace folder has no results.json (record with `esp record` to get one).", ("class", "muted"));
            return;
        }
        // One chart per N: sizes grow with N, so N=100 would be invisible beside N=10,000 on one axis.
        var manyN = RowLabels.ManyN(rows);
        using (html.Block("div", ("class", "multiples")))
            foreach (var n in rows.GroupBy(s => s.Objects))
            {
                var labels = n.Select(s => s.Serializer).ToList();
                var suffix = manyN ? Fmt.NSuffix(n.Key) : "";
                charts.Write(html, new ChartSpec
                {
                    Name = "size" + (manyN ? "-N" + n.Key.ToString(System.Globalization.CultureInfo.InvariantCulture) : ""),
                    Kind = ChartKind.Bar,
                    Title = $"Serialized size (KB){suffix}",
                    Data = new JsonObject
                    {
                        ["labels"] = new JsonArray([.. labels.Select(l => (JsonNode)l)]),
                        ["series"] = new JsonArray(ChartSpec.Series("size", ChartSpec.NeutralClass(0),
                            n.Select((s, i) => (JsonNode)ChartSpec.Value(s.SizeBytes!.Value / 1024.0, $"{labels[i]}{suffix}: {Fmt.Num(s.SizeBytes!.Value / 1024.0)} KB ({s.SizeBytes:N0} bytes)")))),
                    },
                    Options = new JsonObject
                    {
                        ["horizontalBars"] = true,
                        ["axisY"] = new JsonObject { ["offset"] = RowLabels.AxisOffset(labels) },
                        ["axisX"] = new JsonObject { ["unit"] = " KB", ["scaleMinSpace"] = 50 },
                        ["chartPadding"] = new JsonObject { ["right"] = 30 },
                    },
                    CssClass = "bars-thin",
                    HeightPx = 60 + 20 * labels.Count,
                    Caption = "Bytes written by one serialize call of the whole payload, as the benchmark measured it.",
                });
            }
    }
}
