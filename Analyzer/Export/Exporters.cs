using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Export;

/// <summary>
/// Every exporter, and the one place that chooses among them: a command passes its --format, --out, --html and
/// --speedscope here and gets back what to write where. Nothing else compares formats.
/// </summary>
public static class Exporters
{
    /// <summary>One per format. Order matters for files: the HTML page links the flame graphs and the profile, so they come first.</summary>
    public static IReadOnlyList<IExporter> All { get; } =
        [new TextExporter(), new CsvExporter(), new JsonExporter(), new MarkdownExporter(), new SpeedscopeExporter(), new FirefoxExporter(), new HtmlExporter()];

    /// <summary>--format when it is not given.</summary>
    public const TableFormat DefaultFormat = TableFormat.Text;

    /// <summary>The exporter of a --format value.</summary>
    public static DocumentExporter ForFormat(TableFormat format) =>
        All.OfType<DocumentExporter>().Single(e => e.Name.Equals(format.ToString(), StringComparison.OrdinalIgnoreCase));

    /// <summary>The report in a --format, as a string (tests, and callers that embed it).</summary>
    public static string Render(ReportDocument report, TableFormat format) => ForFormat(format).Render(report);

    /// <summary>
    /// What a command writes: its report in --format to the terminal or --out, and the files --html, --speedscope and
    /// --firefox ask for. Throws the one-line usage error when the report lacks a format asked for; call it before the work.
    /// </summary>
    public static ExportPlan Select(ReportKind kind, TableFormat format, string? outPath = null, string? htmlPath = null, string? speedscopeDir = null, string? firefoxPath = null)
    {
        var terminal = ForFormat(format);
        Require(kind, terminal);
        var files = new List<(IExporter, string)>();
        foreach (var exporter in All)
        {
            var path = exporter switch
            {
                HtmlExporter => htmlPath,
                SpeedscopeExporter => speedscopeDir,
                FirefoxExporter => firefoxPath,
                _ => null,
            };
            if (path is null) continue;
            Require(kind, exporter);
            files.Add((exporter, path));
        }
        return new ExportPlan(terminal, outPath, files);
    }

    public static string UnsupportedMessage(ReportKind kind, IExporter exporter)
    {
        if (exporter is not DocumentExporter) return $"{kind.Command} has no {exporter.Name} output";
        var formats = All.OfType<DocumentExporter>().Where(kind.Has).Select(e => e.Name).ToList();
        var list = formats.Count > 1 ? string.Join(", ", formats.Take(formats.Count - 1)) + " or " + formats[^1] : formats.Single();
        return $"{kind.Command} supports --format {list}{(kind.Note is null ? "" : $" ({kind.Note})")}";
    }

    private static void Require(ReportKind kind, IExporter exporter)
    {
        if (!kind.Has(exporter)) throw new UsageException(UnsupportedMessage(kind, exporter));
    }
}
