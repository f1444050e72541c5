using System.Globalization;
using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports.Html.Sections;

/// <summary>Per operation, each serializer's mean run split by stack tag group: the report's main chart.</summary>
/// <param name="onCpu">The tags come from a kernel session's on-CPU samples (then off-CPU time is shown too).</param>
internal sealed class StackTagSection(IReadOnlyList<SerializerSummary> summaries, bool onCpu = false) : IReportSection
{
    public string Id => "stack-tags";
    public string Title => "Where the time goes";

    /// <summary>Group colors stay the same in every chart and report: serializer code is always blue, GC always teal.</summary>
    public static string SeriesClassOf(string group, IReadOnlyList<string> order)
    {
        var known = StackTagGroups.Known.ToList();
        if (known.Contains(group)) return ChartSpec.SeriesClass(known.IndexOf(group));
        if (group == StackTagGroups.Other) return ChartSpec.SeriesClass(known.Count);
        var extras = order.Where(g => !known.Contains(g) && g != StackTagGroups.Other).ToList();
        return ChartSpec.SeriesClass(known.Count + 1 + extras.IndexOf(group));
    }

    public void Write(HtmlWriter html, ChartSet charts)
    {
        html.Element("p", onCpu
            ? "Mean on-CPU time of the worker per measured run (kernel session samples), split by the first level of each sample's "
              + "stack tag over managed, native and kernel frames (Serialize\\X and Deserialize\\X are the serializer's own code; "
              + "GC is GC work done on the thread). The run's time off the CPU is in the table below, by reason."
            : "Mean sampled time per measured run, split by the first level of each sample's stack tag "
              + "(Serialize\\X and Deserialize\\X are the serializer's own code). A bar ends near the run's duration: "
              + "EventPipe samples time in managed code, and GC pauses are charged to GC.", ("class", "muted"));
        if (summaries.All(s => s.Tags.Count == 0))
        {
            html.Element("p", "This trace has no tagged samples (no SampleProfiler, or no stack tags file): nothing to split.");
            return;
        }
        var order = StackTagGroups.Order(summaries);
        foreach (var op in summaries.GroupBy(s => s.Operation))
        {
            var rows = op.ToList();
            var manyN = RowLabels.ManyN(rows);
            var labels = rows.Select(s => RowLabels.Of(s, manyN)).ToList();
            var grouped = rows.Select(s => StackTagGroups.Group(s.Tags, order)).ToList();
            var series = order.Select(g => (JsonNode)ChartSpec.Series(g, SeriesClassOf(g, order), rows.Select((s, i) =>
            {
                var total = grouped[i].Values.Sum();
                var ms = grouped[i][g];
                return (JsonNode)ChartSpec.Value(ms, $"{labels[i]} {op.Key}: {g} {Fmt.Ms(ms)} ms ({(total > 0 ? Fmt.Pct(ms / total) : "-")}); operation {Fmt.Ms(s.MeanDurationMs)} ms");
            })));
            charts.Write(html, new ChartSpec
            {
                Name = "stack-tags-" + op.Key,
                Kind = ChartKind.Bar,
                Title = $"{op.Key}: mean ms per operation by stack tag group",
                Data = new JsonObject { ["labels"] = new JsonArray([.. labels.Select(l => (JsonNode)l)]), ["series"] = new JsonArray([.. series]) },
                Options = new JsonObject
                {
                    ["horizontalBars"] = true,
                    ["stackBars"] = true,
                    ["axisY"] = new JsonObject { ["offset"] = RowLabels.AxisOffset(labels) },
                    ["axisX"] = new JsonObject { ["unit"] = " ms", ["scaleMinSpace"] = 60 },
                    ["chartPadding"] = new JsonObject { ["right"] = 50 },
                },
                Legend = [.. order.Select(g => (g, SeriesClassOf(g, order)))],
                CssClass = "bars",
                HeightPx = 70 + 32 * rows.Count,
            });
        }
        foreach (var table in StackTagGroups.Tables(summaries, onCpu)) TableHtml.Write(html, table);
        html.Element("p", string.Create(CultureInfo.InvariantCulture, $"Groups: {string.Join(", ", order)}. Full tag paths per run are in the JSON output (--format json)."), ("class", "caption"));
    }
}
