using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Analyzer.Reports.Html.Sections;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports.Html;

/// <summary>The sections of `esp analyze --html`, in reading order: the answer first (the picture, then the verdicts), the evidence after.</summary>
internal static class AnalysisHtmlReport
{
    /// <param name="notes">Findings to list before the analyzer's warnings (the findings branch plugs in here).</param>
    public static IReadOnlyList<IReportSection> Sections(TraceAnalysis analysis, RunStacks stacks, string? htmlPath, IReadOnlyList<ReportNote>? notes = null)
    {
        var summaries = analysis.Cases;
        // Findings first (most severe first, as the analyzer orders them), then the analysis warnings.
        // Each finding names its case with N and the runs its evidence comes from, as the text output does.
        // A finding about one case links to that case's call tree, when the page has one.
        var trees = stacks.Profiles.ToDictionary(p => (p.Serializer, p.Operation, p.Objects), CallTreeSection.AnchorOf);
        var findings = analysis.Findings.Select(f => new ReportNote("finding",
            $"[{WireNames.Of(f.Severity)}] {f.Kind}: {f.Message}",
            Detail: f.Frame is null ? null : "at " + f.Frame,
            Subject: $"{FindingsReport.Subject(f)} ({FindingsReport.Runs(f)})",
            Link: f is { Serializer: { } s, Operation: { } op, Objects: { } n } ? trees.GetValueOrDefault((s, op, n)) : null));
        var allNotes = findings.Concat(notes ?? []).Concat(analysis.Warnings.Select(w => new ReportNote("warning", w))).ToList();
        if (analysis.Runs.Count == 0)
            return [new OverviewSection(analysis), new NotesSection(allNotes), new WholeTraceSection(analysis), new CallTreeSection(stacks, htmlPath)];
        var verdicts = Verdicts.Of(analysis);
        return
        [
            new CauseSection(verdicts, summaries, analysis.Trace.OnCpu),
            new VerdictSection(verdicts),
            new OverviewSection(analysis),
            new NotesSection(allNotes),
            new SizeSection(summaries),
            new GcSection(summaries),
            new ScalingSection(summaries),
            new TimelineSection(analysis.Runs, stacks.GcPauses),
            new CallTreeSection(stacks, htmlPath),
            new TablesSection("tables", "Tables", [.. AnalysisReport.OperationTables(analysis)], [.. AnalysisReport.HotMethodTables(analysis, 15), AnalysisReport.RunsTable(analysis)],
                fold: "The tables esp analyze prints (per operation), then hot methods per case and every run, each folded"),
        ];
    }

    public static string Render(TraceAnalysis analysis, RunStacks stacks, string? htmlPath, IReadOnlyList<ReportNote>? notes = null)
    {
        var name = Path.GetFileName(analysis.Trace.Path.TrimEnd('/', '\\'));
        var serializers = analysis.Runs.Select(r => r.Key.Serializer).Distinct().Count();
        var subtitle = $"{analysis.Trace.Path} · {serializers} serializer(s), {analysis.Runs.Count} runs · {analysis.Trace.Format}, {analysis.Trace.ReaderInWords}"
            + (analysis.Trace.RuntimeVersion is { } v ? $" · .NET {v}" : "");
        return HtmlReport.Render($"Why is this serializer slow? {name}", subtitle, Sections(analysis, stacks, htmlPath, notes));
    }
}
