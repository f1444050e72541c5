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
        // Small multiples: one chart per operation and N, each on its own axis, so N=100 is as readable as N=10,000.
        foreach (var op in summaries.GroupBy(s => s.Operation))
            using (html.Block("div", ("class", "multiples")))
                foreach (var n in op.GroupBy(s => s.Objects))
                    WriteChart(charts, html, op.Key, n.Key, RowLabels.ManyN(op), [.. n], order);
        using (html.Block("details"))
        {
            html.Element("summary", "The same as tables, in ms and %");
            foreach (var table in StackTagGroups.Tables(summaries, onCpu)) TableHtml.Write(html, table);
        }
        html.Element("p", string.Create(CultureInfo.InvariantCulture, $"Groups: {string.Join(", ", order)}. Full tag paths per run are in the JSON output (--format json)."), ("class", "caption"));
    }

    /// <summary>Between a row's serializer and its mean ms per operation in the chart's labels.</summary>
    public const string LabelSeparator = " · ";

    /// <summary>Chart name: "stack-tags-OP", plus "-N" and N when the operation has several N.</summary>
    public static string ChartName(string operation, int objects, bool manyN) => "stack-tags-" + operation + (manyN ? "-N" + objects.ToString(CultureInfo.InvariantCulture) : "");

    private static void WriteChart(ChartSet charts, HtmlWriter html, string operation, int objects, bool manyN, IReadOnlyList<SerializerSummary> rows, IReadOnlyList<string> order)
    {
        // The row's time per operation is in its label: a bar 200 times shorter than the longest still has a readable figure.
        var labels = rows.Select(s => $"{s.Serializer}{LabelSeparator}{Fmt.Ms(s.MeanDurationMs)} ms").ToList();
        var grouped = rows.Select(s => StackTagGroups.Group(s.Tags, order)).ToList();
        var caseName = operation + (objects == 0 ? "" : " " + Fmt.NSuffix(objects).Trim());
        var series = order.Select(g => (JsonNode)ChartSpec.Series(g, SeriesClassOf(g, order), rows.Select((s, i) =>
        {
            var total = grouped[i].Values.Sum();
            var ms = grouped[i][g];
            return (JsonNode)ChartSpec.Value(ms, $"{s.Serializer} {caseName}: {g} {Fmt.Ms(ms)} ms ({(total > 0 ? Fmt.Pct(ms / total) : "-")}); operation {Fmt.Ms(s.MeanDurationMs)} ms");
        })));
        charts.Write(html, new ChartSpec
        {
            Name = ChartName(operation, objects, manyN),
            Kind = ChartKind.Bar,
            Title = $"{caseName}: mean ms per operation by stack tag group",
            Data = new JsonObject { ["labels"] = new JsonArray([.. labels.Select(l => (JsonNode)l)]), ["series"] = new JsonArray([.. series]) },
            Options = new JsonObject
            {
                ["horizontalBars"] = true,
                ["stackBars"] = true,
                ["axisY"] = new JsonObject { ["offset"] = RowLabels.AxisOffset(labels) },
                ["axisX"] = new JsonObject { ["unit"] = " ms", ["scaleMinSpace"] = 50 },
                ["chartPadding"] = new JsonObject { ["right"] = 30 },
            },
            Legend = [.. order.Select(g => (g, SeriesClassOf(g, order)))],
            CssClass = "bars-thin",
            HeightPx = 60 + 20 * rows.Count,
        });
    }
}
