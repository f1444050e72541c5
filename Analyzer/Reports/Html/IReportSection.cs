namespace EtwSerializerProfiler.Analyzer.Reports.Html;

/// <summary>
/// One titled part of an HTML report. The page (<see cref="HtmlReport"/>) gives every section a heading, an
/// anchor in the table of contents and access to the charts; a section only writes its body. The analysis report
/// is a list of these, and `esp diff --html` is meant to be another list (docs/report.md).
/// </summary>
internal interface IReportSection
{
    /// <summary>Anchor id, unique in the page (letters, digits and '-').</summary>
    string Id { get; }

    string Title { get; }

    void Write(HtmlWriter html, ChartSet charts);

    /// <summary>
    /// Non-null: the body is folded behind this line (a details element), so the page stays a few screens tall; the
    /// heading and its anchor stay visible. Null: the body is shown.
    /// </summary>
    string? Fold => null;
}
