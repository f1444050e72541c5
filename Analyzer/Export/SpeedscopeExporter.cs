using Microsoft.Diagnostics.Tracing.Stacks.Formats;

namespace EtwSerializerProfiler.Analyzer.Export;

/// <summary>
/// --speedscope DIR: one speedscope flame graph file per serializer and operation (per busy thread for a trace without
/// runs), from the stacks the second pass collected, written with TraceEvent's SpeedScopeStackSourceWriter.
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
        foreach (var profile in stacks.Profiles.Where(p => p.Samples > 0))
        {
            var file = Path.Combine(dir, CallTrees.RunStackCollector.SpeedscopeFileName(profile.Serializer, profile.Operation));
            OutputFile.Writable(Option, path, () => SpeedScopeStackSourceWriter.WriteStackViewAsJson(stacks.SourceOf(profile), file));
            profile.SpeedscopePath = file;
        }
        stacks.SpeedscopeDirectory = dir;
        progress.Report($"wrote {stacks.Profiles.Count(p => p.SpeedscopePath is not null)} speedscope file(s) to {dir}");
    }
}
