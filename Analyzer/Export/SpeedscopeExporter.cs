using Microsoft.Diagnostics.Tracing.Stacks.Formats;

namespace EtwSerializerProfiler.Analyzer.Export;

/// <summary>
/// --speedscope DIR: one speedscope flame graph file per serializer, operation and N (per busy thread for a trace without
/// runs), from the charged samples' stacks (CallTrees/RunStackCollector), written with TraceEvent's
/// SpeedScopeStackSourceWriter. The file names are the collector's, so the HTML page links them without this exporter
/// changing anything: the stacks are collected for the same folder (RunStackCollector.Collect's speedscopeDirectory).
/// </summary>
public sealed class SpeedscopeExporter : IExporter
{
    public const string FormatName = "speedscope";
    public const string Option = "--speedscope";

    public string Name => FormatName;

    public ExportTarget Target => ExportTarget.Folder;

    public void Export(ReportDocument report, TextWriter terminal, string? path, IProgress<string> progress)
    {
        ArgumentNullException.ThrowIfNull(path);
        var stacks = report.Stacks ?? throw new InvalidOperationException($"{report.Kind.Command} collected no stacks for {Option}");
        var dir = OutputFile.Folder(Option, path);
        var written = 0;
        foreach (var profile in stacks.Profiles.Where(p => p.Samples > 0))
        {
            var file = Path.Combine(dir, CallTrees.RunStackCollector.SpeedscopeFileName(profile.Serializer, profile.Operation, profile.Objects));
            OutputFile.Writable(Option, path, () => SpeedScopeStackSourceWriter.WriteStackViewAsJson(stacks.SourceOf(profile), file));
            written++;
        }
        progress.Report($"wrote {written} speedscope file(s) to {dir}");
    }
}
