namespace EtwSerializerProfiler.Analyzer.Export;

/// <summary>
/// A command's report and the formats it has, by exporter name: checked when the exporters are chosen, before the
/// work, so a --format a report lacks costs no time. <paramref name="Note"/> says where the missing JSON is instead.
/// </summary>
public sealed record ReportKind(string Command, IReadOnlyList<string> Formats, string? Note = null)
{
    /// <summary>Where its JSON's fields are documented (--format's help); null: no JSON, or none documented apart.</summary>
    public string? JsonDocs { get; init; }

    private static readonly string[] Tables = [TextExporter.FormatName, CsvExporter.FormatName, MarkdownExporter.FormatName];

    public static readonly ReportKind Analysis = new("analyze", [.. Tables, JsonExporter.FormatName, HtmlExporter.FormatName, SpeedscopeExporter.FormatName, FirefoxExporter.FormatName])
        { JsonDocs = "docs/analyzer.md#json-the-stable-contract-for-scripts" };
    public static readonly ReportKind Diff = new("diff", [.. Tables, JsonExporter.FormatName, HtmlExporter.FormatName]) { JsonDocs = "docs/diff.md#json---format-json" };
    public static readonly ReportKind Heap = new("heap", [.. Tables, JsonExporter.FormatName]);
    public static readonly ReportKind HeapList = new("heap --list", Tables, "the manifest's heapSnapshots is the JSON");
    public static readonly ReportKind Stats = new("stats", Tables);
    /// <summary>A findings list on its own (tests, tools); in a command it is part of the analysis.</summary>
    public static readonly ReportKind Findings = new("findings", [TextExporter.FormatName, MarkdownExporter.FormatName]);

    public static IReadOnlyList<ReportKind> All { get; } = [Analysis, Diff, Heap, HeapList, Stats, Findings];

    public bool Has(IExporter exporter) => Formats.Contains(exporter.Name, StringComparer.Ordinal);
}
