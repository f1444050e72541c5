using System.Text.Json;
using System.Text.RegularExpressions;
using AngleSharp.Html.Parser;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>
/// Issue 58: a color keeps its meaning across every chart. The causes' colors (CauseColors.cs, the --cause rules) are
/// used for nothing else on the page, and every chart series and legend entry is painted by the report's own classes,
/// never by Chartist's default palette. Read from the default benchmark's page (<see cref="SixtyCases"/>), which has
/// every chart, the scaling charts with 15 serializers among them.
/// </summary>
public sealed partial class ReportColorTests
{
    [Fact]
    public void No_color_but_a_causes_own_equals_a_cause_color()
    {
        var (causes, others) = Colors(SixtyCases.HtmlPage.Html);
        Assert.True(causes.Count >= 10, $"only {causes.Count} cause colors found: {string.Join(", ", causes)}");
        var clashes = others.Where(o => causes.Contains(o.Color)).Select(o => $"{o.Color} in {o.Where}").ToList();
        Assert.True(clashes.Count == 0, "a cause's color used for something else:\n" + string.Join("\n", clashes));
    }

    [Fact]
    public void A_cause_color_used_elsewhere_is_caught_so_the_check_above_can_fail()
    {
        var html = SixtyCases.HtmlPage.Html;
        var (causes, _) = Colors(html);
        var reused = causes.First();
        var broken = html.Replace("</style>", $".some-serializer .ct-line {{ stroke: {reused.ToUpperInvariant()}; }}</style>", StringComparison.Ordinal);
        var (_, others) = Colors(broken);
        Assert.Contains(others, o => o.Color == reused);
    }

    [Fact]
    public void Every_series_and_legend_entry_is_painted_by_the_reports_own_classes()
    {
        var doc = new HtmlParser().ParseDocument(SixtyCases.HtmlPage.Html);
        var specs = JsonDocument.Parse(doc.GetElementById("report-charts")!.TextContent).RootElement;
        var scaling = 0;
        foreach (var spec in specs.EnumerateArray())
        {
            var name = spec.GetProperty("name").GetString()!;
            var classes = spec.GetProperty("data").GetProperty("series").EnumerateArray()
                .Select(s => s.TryGetProperty("className", out var c) ? c.GetString() ?? "" : "").ToList();
            Assert.All(classes, c => Assert.Matches(OwnClass(), c));
            if (!name.StartsWith("scaling-", StringComparison.Ordinal)) continue;
            // Serializers are no cause: their lines wear no cause's class, and each its own pattern.
            scaling++;
            Assert.All(classes, c => Assert.StartsWith("ct-serializer-", c, StringComparison.Ordinal));
            Assert.Equal(15, classes.Distinct().Count());
        }
        Assert.Equal(2, scaling);
        foreach (var li in doc.QuerySelectorAll("figure[data-chart] ul.legend > li"))
            Assert.Matches(OwnClass(), li.ClassName ?? "");
    }

    /// <summary>
    /// Every hex color in the page's styles (style elements and attributes), lower case and six digits: the ones the
    /// --cause rules set, and every other with where it stands.
    /// </summary>
    private static (HashSet<string> Causes, List<(string Color, string Where)> Others) Colors(string html)
    {
        var doc = new HtmlParser().ParseDocument(html);
        var styles = doc.QuerySelectorAll("style").Select(s => s.TextContent)
            .Concat(doc.QuerySelectorAll("[style]").Select(e => e.GetAttribute("style")!));
        var causes = new HashSet<string>(StringComparer.Ordinal);
        var others = new List<(string, string)>();
        foreach (var style in styles)
        {
            foreach (Match m in CauseRule().Matches(style)) causes.Add(Normalize(m.Groups["color"].Value));
            var rest = CauseRule().Replace(style, "");
            foreach (Match m in HexColor().Matches(rest))
                others.Add((Normalize(m.Value), rest[Math.Max(0, m.Index - 80)..Math.Min(rest.Length, m.Index + 10)].ReplaceLineEndings(" ")));
        }
        return (causes, others);
    }

    private static string Normalize(string hex)
    {
        hex = hex.ToLowerInvariant();
        return hex.Length == 4 ? string.Concat("#", hex[1], hex[1], hex[2], hex[2], hex[3], hex[3]) : hex;
    }

    [GeneratedRegex(@"--cause:\s*(?<color>#[0-9a-fA-F]{3,6})\b")]
    private static partial Regex CauseRule();

    [GeneratedRegex(@"#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b")]
    private static partial Regex HexColor();

    /// <summary>A cause (cause-gc, cause-x0), a neutral (ct-neutral-0, ct-neutral-warmup) or a serializer line, and extra classes after it.</summary>
    [GeneratedRegex(@"^(cause-[a-z0-9]+|ct-neutral-[a-z0-9]+|ct-serializer-[0-9]+)( [a-z0-9-]+)*$")]
    private static partial Regex OwnClass();
}
