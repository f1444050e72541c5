using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports.Html.Sections;

/// <summary>Tables as `esp analyze` prints them; the long ones (hot methods per case, every run) folded away behind a summary line each.</summary>
/// <param name="fold">Non-null: the whole section is folded behind this line.</param>
internal sealed class TablesSection(string id, string title, IReadOnlyList<TextTable> tables, IReadOnlyList<TextTable> folded, string? fold = null) : IReportSection
{
    public string Id => id;
    public string Title => title;
    public string? Fold => fold;

    public void Write(HtmlWriter html, ChartSet charts)
    {
        foreach (var t in tables) TableHtml.Write(html, t);
        foreach (var t in folded)
            using (html.Block("details"))
            {
                html.Element("summary", $"{t.Title} ({t.Rows.Count} rows)");
                TableHtml.Write(html, t);
            }
    }
}
