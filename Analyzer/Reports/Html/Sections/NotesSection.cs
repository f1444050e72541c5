namespace EtwSerializerProfiler.Analyzer.Reports.Html.Sections;

/// <summary>
/// Findings and warnings, as a list. This is the extension point for findings: whoever has them passes them in
/// as <see cref="ReportNote"/>s of kind "finding" (listed first) next to the warnings.
/// </summary>
internal sealed class NotesSection(IReadOnlyList<ReportNote> notes) : IReportSection
{
    public string Id => "notes";
    public string Title => "Findings and warnings";

    public void Write(HtmlWriter html, ChartSet charts)
    {
        if (notes.Count == 0)
        {
            html.Element("p", "No findings and no warnings for this trace.", ("class", "muted"));
            return;
        }
        using (html.Block("ul", ("class", "notes")))
            foreach (var note in notes.OrderBy(n => n.Kind == "finding" ? 0 : 1))
                using (html.Block("li", ("class", note.Kind), ("data-kind", note.Kind)))
                {
                    html.Element("span", note.Kind + ":", ("class", "severity"));
                    if (note.Subject is not null) html.Element("strong", note.Subject + " ");
                    html.Text(note.Text);
                    if (note.Link is not null) html.Text(" ").Element("a", "call tree", ("href", "#" + note.Link), ("class", "tree-link"));
                    if (note.Detail is not null) html.Element("div", note.Detail, ("class", "caption"));
                }
    }
}
