using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Export;

/// <summary>
/// What a command hands its exporters: one result (an analysis, a diff, heap snapshots, trace statistics) as the parts
/// the formats are made of. The reports build it (AnalysisReport.Document, DiffReport.Document, ...); they do not
/// know the formats, and the exporters do not know the reports.
/// </summary>
public sealed class ReportDocument
{
    public required ReportKind Kind { get; init; }

    /// <summary>Markdown's "## " heading; the terminal has none.</summary>
    public string? Heading { get; init; }

    /// <summary>Text and Markdown: tables, lines and lists in reading order.</summary>
    public IReadOnlyList<ReportPart> Parts { get; init; } = [];

    /// <summary>CSV: the machine-readable table(s), which are not the terminal's (one line per run, one per metric); made only when CSV is written.</summary>
    public Func<IReadOnlyList<TextTable>> CsvTables { get; init; } = () => [];

    /// <summary>JSON: the documented contract (docs/analyzer.md, docs/diff.md, docs/heap.md); null when there is none.</summary>
    public Func<JsonNode>? Json { get; init; }

    /// <summary>HTML: the self-contained page, given the path it goes to (its links to flame graphs are relative).</summary>
    public Func<string, string>? Html { get; init; }

    /// <summary>The measured runs' stacks (from the charge's ledger, the same samples as the tables): speedscope files, and the HTML's call trees.</summary>
    public RunStacks? Stacks { get; init; }

    /// <summary>The analysis itself, for a format that lays out the whole trace in time (--firefox); null for other reports.</summary>
    public Model.TraceAnalysis? Analysis { get; init; }
}

/// <summary>A piece of a text or Markdown report.</summary>
public abstract record ReportPart;

/// <summary>A table and, unless it ends the report, a blank line. <paramref name="Detail"/>: documents (Markdown)
/// carry it, the terminal leaves it out.</summary>
internal sealed record TablePart(TextTable Table, bool Detail = false, bool BlankLineAfter = true) : ReportPart;

/// <summary>Lines of prose (the trace notes, the diff's header), then a blank line; bullets in Markdown, escaped when
/// <paramref name="EscapeMarkdown"/> (a path with underscores is not emphasis; a `command` stays a code span).</summary>
internal sealed record LinesPart(IReadOnlyList<string> Lines, bool EscapeMarkdown) : ReportPart;

/// <summary>A titled list (the findings): the title, then indented items; a "###" heading and bullets in Markdown.</summary>
internal sealed record ListPart(string Title, IReadOnlyList<string> Items) : ReportPart;
