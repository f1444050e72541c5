using EtwSerializerProfiler.Analyzer.Diff;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Analyzer.Reports.Html.Sections;

namespace EtwSerializerProfiler.Analyzer.Reports.Html;

/// <summary>`esp diff --html F`: the comparison as one self-contained page built from the same sections as analyze's.</summary>
internal static class DiffHtmlReport
{
    public static string Render(TraceDiff diff)
    {
        var notes = diff.Warnings.Select(w => new ReportNote("warning", w)).ToList();
        var sections = new List<IReportSection> { new NotesSection(notes) };
        sections.AddRange(diff.Rows.GroupBy(r => r.Operation).Select(g => new DiffDurationSection(g.Key, g.ToList())));
        sections.Add(new TablesSection("tables", "Tables", DiffReport.Tables(diff).ToList(), [DiffReport.LongTable(diff)]));
        return HtmlReport.Render($"esp diff {diff.Baseline.Path} {diff.Trace.Path}", string.Join(" · ", DiffReport.Header(diff)), sections);
    }
}
