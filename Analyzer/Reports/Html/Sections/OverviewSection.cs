using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;

namespace EtwSerializerProfiler.Analyzer.Reports.Html.Sections;

/// <summary>What was traced and how: the same notes `esp analyze` prints under its tables, and how to read the page.</summary>
internal sealed class OverviewSection(TraceAnalysis analysis) : IReportSection
{
    public string Id => "overview";
    public string Title => "Trace";

    public void Write(HtmlWriter html, ChartSet charts)
    {
        var serializers = analysis.Runs.Select(r => r.Key.Serializer).Distinct().ToList();
        using (html.Block("ul"))
        {
            foreach (var note in AnalysisReport.TraceNotes(analysis).Where(n => !n.StartsWith("warning: ", StringComparison.Ordinal)))
                html.Element("li", note);
            html.Element("li", $"Serializers: {string.Join(", ", serializers)}");
            if (analysis.Warnings.Count > 0) html.Element("li", $"{analysis.Warnings.Count} warning(s): see Findings and warnings.");
        }
    }
}
