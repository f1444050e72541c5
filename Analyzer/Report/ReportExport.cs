using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Report;

/// <summary>`esp analyze --html F --speedscope DIR`: one extra pass over the trace for the stacks, then the files.</summary>
public static class ReportExport
{
    public static RunStacks Write(TraceInput input, TraceAnalysis analysis, AnalyzerOptions options, string? htmlPath, string? speedscopeDir,
        IReadOnlyList<ReportNote>? notes = null, IProgress<string>? progress = null)
    {
        // Output places are checked before the trace is read again, so a typo costs no time.
        if (speedscopeDir is not null) Writable("--speedscope", speedscopeDir, () => Directory.CreateDirectory(speedscopeDir));
        var stacks = RunStackCollector.Collect(input, analysis, options, speedscopeDir, progress);
        if (htmlPath is not null)
        {
            var html = AnalysisHtmlReport.Render(analysis, stacks, htmlPath, notes);
            Writable("--html", htmlPath, () =>
            {
                var dir = Path.GetDirectoryName(Path.GetFullPath(htmlPath));
                if (dir is not null) Directory.CreateDirectory(dir);
                File.WriteAllText(htmlPath, html);
            });
            progress?.Report($"wrote {htmlPath}");
        }
        return stacks;
    }

    private static void Writable(string option, string path, Action write)
    {
        try
        {
            write();
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw new UsageException($"{option} {path}: cannot write there ({ex.Message})");
        }
    }
}
