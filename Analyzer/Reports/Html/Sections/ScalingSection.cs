using System.Globalization;
using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports.Html.Sections;

/// <summary>Mean duration against N on log-log axes, per operation: a straight line of slope 1 is linear scaling.</summary>
internal sealed class ScalingSection(IReadOnlyList<CaseSummary> summaries) : IReportSection
{
    public string Id => "scaling";
    public string Title => "Scaling with N";

    public void Write(HtmlWriter html, ChartSet charts)
    {
        var drawn = false;
        using (html.Block("div", ("class", "multiples")))
        foreach (var op in summaries.GroupBy(s => s.Operation))
        {
            var rows = op.Where(s => s.Objects > 0 && s.MeanDurationMs > 0).ToList();
            if (rows.Select(s => s.Objects).Distinct().Count() < 2) continue;
            drawn = true;
            var serializers = rows.Select(s => s.Serializer).Distinct().ToList();
            // Chartist has no log axis: values go in as log10 and the ticks are labelled with the real numbers.
            var series = serializers.Select((name, i) => (JsonNode)ChartSpec.Series(name, SerializerLines.ClassOf(i),
                rows.Where(s => s.Serializer == name).OrderBy(s => s.Objects)
                    .Select(s => (JsonNode)ChartSpec.Point(Math.Log10(s.Objects), Math.Log10(s.MeanDurationMs), $"{name} {op.Key} N={s.Objects:N0}: {Fmt.Ms(s.MeanDurationMs)} ms"))));
            var (xLow, xHigh, xTicks) = LogTicks(rows.Min(s => (double)s.Objects), rows.Max(s => (double)s.Objects));
            var (yLow, yHigh, yTicks) = LogTicks(rows.Min(s => s.MeanDurationMs), rows.Max(s => s.MeanDurationMs));
            charts.Write(html, new ChartSpec
            {
                Name = "scaling-" + op.Key,
                Kind = ChartKind.Line,
                Title = $"{op.Key}: mean ms per run against N (log-log)",
                Data = new JsonObject { ["series"] = new JsonArray([.. series]) },
                Options = new JsonObject
                {
                    ["axisX"] = Axis(xLow, xHigh, xTicks, CountLabel),
                    ["axisY"] = Axis(yLow, yHigh, yTicks, DurationLabel, offset: 70),
                    ["lineSmooth"] = "none",
                    ["chartPadding"] = new JsonObject { ["right"] = 40, ["left"] = 20 },
                },
                Legend = [.. serializers.Select((name, i) => (name, SerializerLines.ClassOf(i)))],
                CssClass = "lines serializer-lines",
                HeightPx = 300,
                Caption = "Both axes are logarithmic: equal steps are equal ratios. Parallel lines scale alike; a steeper line grows faster than N.",
            });
        }
        if (!drawn)
            html.Element("p", "This trace has one N per operation. Record several (e.g. `esp record --n 1000,10000,100000`) to see how each serializer scales.", ("class", "muted"));
    }

    private static string CountLabel(double n) => n switch
    {
        >= 1e6 => (n / 1e6).ToString("G3", CultureInfo.InvariantCulture) + "M",
        >= 1e3 => (n / 1e3).ToString("G3", CultureInfo.InvariantCulture) + "k",
        _ => n.ToString("G3", CultureInfo.InvariantCulture),
    };

    private static string DurationLabel(double ms) =>
        ms >= 1000 ? (ms / 1000).ToString("G3", CultureInfo.InvariantCulture) + " s" : ms.ToString("G3", CultureInfo.InvariantCulture) + " ms";

    private static JsonObject Axis(double low, double high, IReadOnlyList<double> ticks, Func<double, string> label, int offset = 30) => new()
    {
        ["offset"] = offset,
        ["scale"] = "fixed",
        ["low"] = low,
        ["high"] = high,
        ["ticks"] = new JsonArray([.. ticks.Select(t => (JsonNode)t)]),
        ["tickLabels"] = new JsonArray([.. ticks.Select(t => (JsonNode)new JsonArray(t, label(Math.Pow(10, t))))]),
    };

    /// <summary>
    /// Axis range and ticks in log10 space: the nearest 1-2-5 values around [min, max], ticks on every 1, 2 and 5 in
    /// between, or on decades only when the range spans more than two of them.
    /// </summary>
    public static (double Low, double High, IReadOnlyList<double> Ticks) LogTicks(double min, double max)
    {
        var steps = new[] { 1.0, 2.0, 5.0 };
        var candidates = new List<double>();
        for (var d = Math.Floor(Math.Log10(min)) - 1; d <= Math.Ceiling(Math.Log10(max)) + 1; d++)
            candidates.AddRange(steps.Select(m => Math.Round(d + Math.Log10(m), 6)));
        var low = candidates.Last(c => c <= Math.Log10(min) + 1e-6);
        var high = candidates.First(c => c >= Math.Log10(max) - 1e-6);
        if (high <= low) high = candidates.First(c => c > low);
        var ticks = candidates.Where(c => c >= low - 1e-9 && c <= high + 1e-9).ToList();
        if (high - low > 2) ticks = [.. ticks.Where(t => Math.Abs(t - Math.Round(t)) < 1e-6 || t == low || t == high)];
        return (low, high, ticks);
    }
}
