using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Analyzer.Reports.Html.Sections;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports.Html;

/// <summary>The sections of `esp analyze --html`, in reading order: the answer first, the evidence after.</summary>
internal static class AnalysisHtmlReport
{
    /// <param name="notes">Findings to list before the analyzer's warnings (the findings branch plugs in here).</param>
    public static IReadOnlyList<IReportSection> Sections(TraceAnalysis analysis, RunStacks stacks, string? htmlPath, IReadOnlyList<ReportNote>? notes = null)
    {
        var summaries = SerializerSummary.From(analysis.Runs);
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
        return
        [
            new OverviewSection(analysis),
            new NotesSection(allNotes),
            new StackTagSection(summaries, analysis.Trace.OnCpu),
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
        var subtitle = $"{analysis.Trace.Path} · {serializers} serializer(s), {analysis.Runs.Count} runs · {analysis.Trace.Format}"
            + (analysis.Trace.RuntimeVersion is { } v ? $" · .NET {v}" : "");
        return HtmlReport.Render($"Why is this serializer slow? {name}", subtitle, Sections(analysis, stacks, htmlPath, notes), html => WriteVerdicts(html, analysis));
    }

    /// <summary>
    /// The verdicts, right under the title: per case, its time per operation against the fastest and its biggest
    /// causes (<see cref="Verdicts"/>, the same lines as the terminal's), each with a link to the case's call tree.
    /// </summary>
    internal static void WriteVerdicts(HtmlWriter html, TraceAnalysis analysis)
    {
        var verdicts = Verdicts.Of(analysis);
        if (verdicts.Count == 0) return;
        using (html.Block("section", ("id", "verdicts"), ("class", "verdicts")))
        {
            html.Element("h2", "Verdicts");
            html.Element("p", Verdicts.Title, ("class", "verdict-note"));
            // One line per case, folded: the head and the first cause; the causes, what else and the findings inside.
            foreach (var v in verdicts)
            {
                var lines = Verdicts.Lines([v], width: 0); // whole: the page wraps them
                using (html.Block("details", ("class", "verdict")))
                {
                    html.Element("summary", lines[0] + (v.Causes.Count > 0 ? $" · first: {v.Causes[0].Name} {Fmt.Pct(v.Causes[0].Share)}" : ""));
                    using (html.Block("ul"))
                        foreach (var line in lines.Skip(1))
                            html.Element("li", line.Trim());
                    html.Element("a", "call tree", ("href", "#" + CallTreeSection.AnchorOf(v.Case.Serializer, v.Case.Operation, v.Case.Objects)), ("class", "verdict-link"));
                }
            }
        }
    }
}
