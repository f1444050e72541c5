namespace EtwSerializerProfiler.Analyzer.Export;

/// <summary>The exporters <see cref="Exporters.Select"/> chose for one command, and where each writes.</summary>
public sealed class ExportPlan(DocumentExporter terminal, string? outPath, IReadOnlyList<(IExporter Exporter, string Path)> files)
{
    /// <summary>The --format exporter: to the terminal, or to --out F.</summary>
    public DocumentExporter Terminal { get; } = terminal;
    public string? OutPath { get; } = outPath;

    /// <summary>--speedscope DIR, --firefox F and --html F, in the order they are written.</summary>
    public IReadOnlyList<(IExporter Exporter, string Path)> Files { get; } = files;

    /// <summary>Files that need the measured runs' stacks (analyze's second pass over the trace).</summary>
    public bool WritesFiles => Files.Count > 0;

    /// <summary>A file that lays the trace out in time (--firefox): the analysis keeps its marks and every thread's samples.</summary>
    public bool WritesTimeLine => Files.Any(f => f.Exporter is FirefoxExporter);

    /// <summary>Folders are made before the long work that fills them, so a typo in the path costs no time.</summary>
    public void PrepareFolders()
    {
        foreach (var (exporter, path) in Files)
            if (exporter.Target == ExportTarget.Folder) OutputFile.Folder("--" + exporter.Name, path);
    }

    /// <summary>--speedscope, --firefox and --html, in that order (the page links the others); a line each to progress.</summary>
    public void ExportFiles(ReportDocument report, IProgress<string> progress)
    {
        foreach (var (exporter, path) in Files) exporter.Export(report, TextWriter.Null, path, progress);
    }

    /// <summary>The report in --format: to the terminal, or to --out F (then a line to progress says so).</summary>
    public void ExportReport(ReportDocument report, TextWriter terminal, IProgress<string> progress) =>
        Terminal.Export(report, terminal, OutPath, progress);
}
