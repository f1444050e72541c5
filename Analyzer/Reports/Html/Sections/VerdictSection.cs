using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports.Html.Sections;

/// <summary>
/// The verdicts, right after the picture: per case, its time per operation against the fastest and its biggest
/// causes (<see cref="Verdicts"/>, the same lines as the terminal's), each cause with the picture's color and the case
/// with a link to its call tree. One folded line per case: the head and the first cause; the rest inside.
/// </summary>
internal sealed class VerdictSection(IReadOnlyList<Verdict> verdicts) : IReportSection
{
    public string Id => "verdicts";
    public string Title => "Verdicts";

    /// <summary>"YamlDotNet serialize N=1,000": how the page names a case, in its verdict, its bar and its hot methods' caption.</summary>
    public static string CaseOf(Verdict v) => $"{v.Case.Serializer} {v.Case.Operation}{Fmt.NSuffix(v.Case.Objects)}";

    /// <summary>A square in the cause's color, a character so that it never wraps away from the name after it.</summary>
    private static HtmlWriter Mark(HtmlWriter html, Cause cause) => html.Element("span", "■", ("class", "mark " + CauseColors.ClassOf(cause.Kind)), ("title", cause.Kind));

    public void Write(HtmlWriter html, ChartSet charts)
    {
        html.Element("p", Verdicts.Title, ("class", "verdict-note"));
        if (verdicts.Count == 0) html.Element("p", "No measured runs.", ("class", "muted"));
        foreach (var v in verdicts)
        {
            var lines = Verdicts.Lines([v], width: 0); // whole: the page wraps them
            using (html.Block("details", ("class", "verdict"), ("data-case", CaseOf(v))))
            {
                using (html.Block("summary"))
                {
                    html.Text(lines[0]);
                    if (v.Causes.Count > 0)
                        Mark(html.Text(" · first: "), v.Causes[0]).Text($"\u00a0{v.Causes[0].Name} {Fmt.Pct(v.Causes[0].Share)}");
                }
                using (html.Block("ul"))
                    for (var i = 1; i < lines.Count; i++)
                        using (html.Block("li"))
                        {
                            // The cause lines come first, one per cause: each gets its color.
                            if (i <= v.Causes.Count) Mark(html, v.Causes[i - 1]).Text("\u00a0");
                            html.Text(lines[i].Trim());
                        }
                html.Element("a", "call tree", ("href", "#" + CallTreeSection.AnchorOf(v.Case.Serializer, v.Case.Operation, v.Case.Objects)), ("class", "verdict-link"));
            }
        }
    }
}
