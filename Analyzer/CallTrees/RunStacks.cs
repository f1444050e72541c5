using EtwSerializerProfiler.Analyzer.Model;
using Microsoft.Diagnostics.Tracing.Stacks;

namespace EtwSerializerProfiler.Analyzer.CallTrees;

/// <summary>
/// What the report needs beside the tables: the charged samples' stacks per serializer, operation and N, and GC pauses.
/// </summary>
public sealed class RunStacks
{
    public required IReadOnlyList<RunProfile> Profiles { get; init; }
    public required IReadOnlyList<Interval> GcPauses { get; init; }
    /// <summary>The --speedscope folder the files are written to (Export/SpeedscopeExporter), when there is one.</summary>
    public string? SpeedscopeDirectory { get; init; }
    /// <summary>The --firefox file the whole trace is written to (Export/FirefoxExporter), when there is one.</summary>
    public string? FirefoxPath { get; init; }

    internal IReadOnlyDictionary<RunProfile, StackSource> Sources { get; init; } = new Dictionary<RunProfile, StackSource>();

    /// <summary>The profile's samples as a TraceEvent stack source (what the speedscope writer takes).</summary>
    public StackSource SourceOf(RunProfile profile) => Sources[profile];
}
