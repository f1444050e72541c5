using System.Globalization;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports.Html.Sections;

/// <summary>
/// The page's first picture: a row per serializer, a column per operation and N, and in each cell the case's time split
/// by the verdict's kinds of cause (<see cref="Verdict.ByKind"/>), its ms per operation written beside. Each bar is 100%
/// of its own time, so the fastest case's causes read as well as the slowest's; a switch draws the bars' lengths as ms
/// on a log scale instead. Plain HTML and CSS: it prints, and needs no script. A click on a bar opens the case (its
/// verdict, hot methods and call tree) under the picture (report.js); without scripts the bar links to the call tree.
/// </summary>
internal sealed class CauseSection(IReadOnlyList<Verdict> verdicts, IReadOnlyList<CaseSummary> summaries, bool onCpu) : IReportSection
{
    /// <summary>Columns in one grid at most: more cases wrap to another grid, so a bar keeps its width.</summary>
    private const int MaxColumns = 4;
    /// <summary>The log scale starts below the fastest case of a column: its bar is this share of the longest.</summary>
    private const double LogFloor = 0.15;

    public string Id => "causes";
    public string Title => "Where the time goes";

    public void Write(HtmlWriter html, ChartSet charts)
    {
        if (verdicts.Count == 0)
        {
            html.Element("p", "No measured runs: nothing to split.", ("class", "muted"));
            return;
        }
        html.Element("p", "Each case's time split by the causes its verdict names, with its ms per operation. Click a bar to open the case.", ("class", "muted"));
        var kinds = verdicts.SelectMany(v => v.ByKind()).Select(k => k.Kind).Distinct().OrderBy(Cause.KindRank).ThenBy(k => k, StringComparer.Ordinal).ToList();
        using (html.Block("ul", ("class", "legend")))
            foreach (var kind in kinds)
                using (html.Block("li", ("class", CauseColors.ClassOf(kind))))
                    html.Element("span", "", ("class", "swatch")).Text(kind);
        var columns = verdicts.Select(v => (v.Case.Operation, v.Case.Objects)).Distinct()
            .OrderBy(c => CaseSummary.OperationOrder(c.Operation)).ThenBy(c => c.Objects).ToList();
        var rows = verdicts.Select(v => v.Case.Serializer).Distinct().ToList();
        var cells = verdicts.ToDictionary(v => (v.Case.Serializer, v.Case.Operation, v.Case.Objects));
        using (html.Block("div", ("class", "picture")))
        {
            html.Void("input", ("type", "radio"), ("name", "picture-scale"), ("id", "scale-share"), ("checked", "checked"));
            html.Element("label", "each bar 100% of its case's time", ("for", "scale-share"));
            html.Void("input", ("type", "radio"), ("name", "picture-scale"), ("id", "scale-log"));
            html.Element("label", "bar length: ms per operation, log scale", ("for", "scale-log"));
            foreach (var chunk in columns.Chunk(MaxColumns))
                WriteGrid(html, chunk, rows, cells);
        }
        html.Element("div", "", ("id", "case-panel"), ("class", "case-panel"), ("hidden", "hidden"));
        using (html.Block("details"))
        {
            html.Element("summary", "The stack tag groups behind the bars as tables, in ms and %");
            foreach (var table in StackTagGroups.Tables(summaries, onCpu)) TableHtml.Write(html, table);
        }
    }

    private static void WriteGrid(HtmlWriter html, IReadOnlyList<(string Operation, int Objects)> columns, IReadOnlyList<string> rows,
        Dictionary<(string, string, int), Verdict> cells)
    {
        using (html.Block("div", ("class", "picture-grid"), ("style", $"grid-template-columns: max-content repeat({columns.Count.ToString(CultureInfo.InvariantCulture)}, minmax(0, 1fr))")))
        {
            html.Element("div", "ms/op", ("class", "picture-head"));
            foreach (var (op, n) in columns) html.Element("div", op + Fmt.NSuffix(n), ("class", "picture-head"));
            var scales = columns.Select(c => LogScale([.. cells.Values.Where(v => (v.Case.Operation, v.Case.Objects) == c).Select(v => v.Case.MeanDurationMs)])).ToList();
            foreach (var serializer in rows)
            {
                if (!columns.Any(c => cells.ContainsKey((serializer, c.Operation, c.Objects)))) continue;
                html.Element("div", serializer, ("class", "picture-row"));
                for (var i = 0; i < columns.Count; i++)
                {
                    if (cells.GetValueOrDefault((serializer, columns[i].Operation, columns[i].Objects)) is not { } v)
                    {
                        html.Element("div", "", ("class", "picture-cell"));
                        continue;
                    }
                    WriteBar(html, v, scales[i](v.Case.MeanDurationMs));
                }
            }
        }
    }

    private static void WriteBar(HtmlWriter html, Verdict v, double logLength)
    {
        var name = VerdictSection.CaseOf(v);
        var split = v.ByKind();
        var total = split.Sum(k => k.Ms);
        var title = $"{name}: {Fmt.Ms(v.Case.MeanDurationMs)} ms/op; " + (total <= 0 ? "no CPU source"
            : string.Join(", ", split.Select(k => $"{k.Kind} {Fmt.Ms(k.Ms)} ms ({Fmt.Pct(k.Ms / total)})")));
        using (html.Block("a", ("class", "picture-cell"), ("href", "#" + CallTreeSection.AnchorOf(v.Case.Serializer, v.Case.Operation, v.Case.Objects)),
                   ("data-case", name), ("title", title)))
        {
            html.Element("span", Fmt.Ms(v.Case.MeanDurationMs), ("class", "ms"));
            using (html.Block("span", ("class", "bar"), ("style", "--log: " + Percent(logLength))))
                foreach (var (kind, ms) in split)
                    html.Element("span", "", ("class", "seg " + CauseColors.ClassOf(kind)), ("style", "width: " + Percent(ms / total)),
                        ("data-kind", kind), ("data-ms", ChartSpec.Round(ms).ToString("R", CultureInfo.InvariantCulture)));
        }
    }

    /// <summary>A column's log scale: the slowest case fills the bar, the fastest <see cref="LogFloor"/> of it.</summary>
    private static Func<double, double> LogScale(IReadOnlyList<double> ms)
    {
        var positive = ms.Where(x => x > 0).ToList();
        if (positive.Count == 0) return _ => 1;
        var (lo, hi) = (positive.Min(), positive.Max());
        if (hi <= lo) return _ => 1;
        return x => x <= 0 ? LogFloor : LogFloor + (1 - LogFloor) * Math.Log(x / lo) / Math.Log(hi / lo);
    }

    private static string Percent(double fraction) => (fraction * 100).ToString("0.##", CultureInfo.InvariantCulture) + "%";
}
