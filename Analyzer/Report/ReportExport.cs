using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Report;

/// <summary>`esp analyze --html F --speedscope DIR`: one extra pass over the trace for the stacks, then the files.</summary>
public static class ReportExport
{
    public static RunStacks Write(TraceInput input, TraceAnalysis analysis, AnalyzerOptions options, string? htmlPath, string? speedscopeDir,
        IReadOnlyList<ReportNote>? notes = null, IProgress<string>? progress = null)
    {
        var stacks = RunStackCollector.Collect(input, analysis, options, speedscopeDir, progress);
        if (htmlPath is not null)
        {
            var dir = Path.GetDirectoryName(Path.GetFullPath(htmlPath));
            if (dir is not null) Directory.CreateDirectory(dir);
            File.WriteAllText(htmlPath, AnalysisHtmlReport.Render(analysis, stacks, htmlPath, notes));
            progress?.Report($"wrote {htmlPath}");
        }
        return stacks;
    }
}
