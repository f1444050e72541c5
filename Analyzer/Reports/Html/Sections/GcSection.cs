using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports.Html.Sections;

/// <summary>GC count by generation and GC pause per serializer and operation (means of measured runs).</summary>
internal sealed class GcSection(IReadOnlyList<CaseSummary> summaries) : IReportSection
{
    public string Id => "gc";
    public string Title => "Garbage collection";

    public string? Fold => "GCs and GC pause per run, per serializer, operation and N";

    public void Write(HtmlWriter html, ChartSet charts)
    {
        // One pair of charts per N: pauses grow with N, so small N would be invisible beside large N on one axis.
        var manyN = RowLabels.ManyN(summaries);
        foreach (var n in summaries.GroupBy(s => s.Objects))
            using (html.Block("div", ("class", "multiples")))
                WriteCharts(html, charts, [.. n], manyN ? n.Key : null);
    }

    private static void WriteCharts(HtmlWriter html, ChartSet charts, IReadOnlyList<CaseSummary> rows, int? n)
    {
        var suffix = n is { } objects ? Fmt.NSuffix(objects) : "";
        var nameSuffix = n is { } o ? "-N" + o.ToString(System.Globalization.CultureInfo.InvariantCulture) : "";
        var labels = rows.Select(s => $"{s.Serializer} {s.Operation}").ToList();
        var offset = RowLabels.AxisOffset(labels);
        var height = 60 + 14 * rows.Count;
        JsonNode Labels() => new JsonArray([.. labels.Select(l => (JsonNode)l)]);
        // Every generation in GC's color (CauseColors), older ones darker.
        static string GenClass(string gen) => CauseColors.ClassOf(StackTagGroups.Gc) + " " + gen;
        JsonNode Gen(string name, Func<CaseSummary, double> count) =>
            ChartSpec.Series(name, GenClass(name), rows.Select((s, r) => (JsonNode)ChartSpec.Value(count(s), $"{labels[r]}{suffix}: {Fmt.Num(count(s))} {name} GCs per run")));

        charts.Write(html, new ChartSpec
        {
            Name = "gc-count" + nameSuffix,
            Kind = ChartKind.Bar,
            Title = $"GCs per run, by generation{suffix}",
            Data = new JsonObject { ["labels"] = Labels(), ["series"] = new JsonArray(Gen("gen0", s => s.Gen0), Gen("gen1", s => s.Gen1), Gen("gen2", s => s.Gen2)) },
            Options = new JsonObject
            {
                ["horizontalBars"] = true,
                ["stackBars"] = true,
                ["axisY"] = new JsonObject { ["offset"] = offset },
                ["axisX"] = new JsonObject { ["unit"] = "", ["onlyInteger"] = true },
                ["chartPadding"] = new JsonObject { ["right"] = 30 },
            },
            Legend = [("gen0", GenClass("gen0")), ("gen1", GenClass("gen1")), ("gen2", GenClass("gen2"))],
            CssClass = "bars-thin",
            HeightPx = height,
            Caption = "GCs whose start falls inside a run's window, by condemned generation (mean of measured runs).",
        });
        charts.Write(html, new ChartSpec
        {
            Name = "gc-pause" + nameSuffix,
            Kind = ChartKind.Bar,
            Title = $"GC pause per run (ms){suffix}",
            Data = new JsonObject
            {
                ["labels"] = Labels(),
                ["series"] = new JsonArray(ChartSpec.Series("pause", CauseColors.ClassOf(StackTagGroups.Gc),
                    rows.Select((s, r) => (JsonNode)ChartSpec.Value(s.GcPauseMs, $"{labels[r]}{suffix}: {Fmt.Ms(s.GcPauseMs)} ms paused of {Fmt.Ms(s.MeanDurationMs)} ms")))),
            },
            Options = new JsonObject
            {
                ["horizontalBars"] = true,
                ["axisY"] = new JsonObject { ["offset"] = offset },
                ["axisX"] = new JsonObject { ["unit"] = " ms", ["scaleMinSpace"] = 50 },
                ["chartPadding"] = new JsonObject { ["right"] = 30 },
            },
            CssClass = "bars-thin",
            HeightPx = height,
            Caption = "Time the runtime was suspended for GC inside the run (clipped to the window; mean of measured runs).",
        });
    }
}
