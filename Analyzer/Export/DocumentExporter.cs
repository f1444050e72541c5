using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Export;

/// <summary>The --format exporters: the report as one text, for the terminal or for --out F.</summary>
public abstract class DocumentExporter : IExporter
{
    public abstract string Name { get; }

    public ExportTarget Target => ExportTarget.Terminal;

    /// <summary>The whole report in this format.</summary>
    public abstract string Render(ReportDocument report);

    public void Export(ReportDocument report, TextWriter terminal, string? path, IProgress<string> progress)
    {
        var text = Render(report);
        if (path is null)
        {
            terminal.Write(text);
            return;
        }
        OutputFile.Write("--out", path, text);
        progress.Report($"wrote {path}");
    }

    /// <summary>A report without this format got here past <see cref="Exporters.Select"/>: the same one line.</summary>
    protected UsageException Unsupported(ReportDocument report) => new(Exporters.UnsupportedMessage(report.Kind, this));
}
