using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports.Html.Sections;

/// <summary>Tables as `esp analyze` prints them; the long ones (every run) folded away behind a summary line.</summary>
internal sealed class TablesSection(string id, string title, IReadOnlyList<TextTable> tables, IReadOnlyList<TextTable> folded) : IReportSection
{
    public string Id => id;
    public string Title => title;

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
