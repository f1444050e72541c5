namespace EtwSerializerProfiler.Analyzer.Export;

/// <summary>--html F: one self-contained page (charts, call trees, tables; docs/report.md). Runs after the flame graphs, which it links.</summary>
public sealed class HtmlExporter : IExporter
{
    public const string FormatName = "html";
    public const string Option = "--html";

    public string Name => FormatName;

    public ExportTarget Target => ExportTarget.File;

    public void Export(ReportDocument report, TextWriter terminal, string? path, IProgress<string> progress)
    {
        ArgumentNullException.ThrowIfNull(path);
        var page = report.Html ?? throw new InvalidOperationException($"{report.Kind.Command} has no HTML page");
        OutputFile.Write(Option, path, page(path));
        progress.Report($"wrote {path}");
    }
}
