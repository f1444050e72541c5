namespace EtwSerializerProfiler.Analyzer.Export;

/// <summary>
/// One output format, as BenchmarkDotNet's IExporter is: a class per format, every command's report goes through it.
/// Which one runs is decided in one place, <see cref="Exporters.Select"/>, from --format, --out, --html and --speedscope.
/// </summary>
public interface IExporter
{
    /// <summary>What users ask for: a value of --format (text, csv, json, markdown), or the option that writes it (html, speedscope).</summary>
    string Name { get; }

    /// <summary>Where it writes: the terminal or --out F (the --format exporters), one file, or a folder of files.</summary>
    ExportTarget Target { get; }

    /// <summary>Writes the report: to <paramref name="terminal"/> when <paramref name="path"/> is null, else to the path;
    /// a line per file written goes to <paramref name="progress"/>.</summary>
    void Export(ReportDocument report, TextWriter terminal, string? path, IProgress<string> progress);
}

public enum ExportTarget { Terminal, File, Folder }
