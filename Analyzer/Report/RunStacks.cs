using Microsoft.Diagnostics.Tracing.Stacks;

namespace EtwSerializerProfiler.Analyzer.Report;

/// <summary>
/// What the report needs from a second look at the trace: stacks per serializer and operation, and GC pauses. It keeps
/// the trace log open (the stack sources name their frames from it) until the exporters are done: dispose it then.
/// </summary>
public sealed class RunStacks : IDisposable
{
    public required IReadOnlyList<RunProfile> Profiles { get; init; }
    public required IReadOnlyList<PauseWindow> GcPauses { get; init; }
    /// <summary>Where the speedscope files went, when they were written.</summary>
    public string? SpeedscopeDirectory { get; internal set; }

    internal IReadOnlyDictionary<RunProfile, StackSource> Sources { get; init; } = new Dictionary<RunProfile, StackSource>();
    internal IDisposable? TraceLog { get; init; }

    /// <summary>The profile's samples as a TraceEvent stack source (what the speedscope writer takes).</summary>
    public StackSource SourceOf(RunProfile profile) => Sources[profile];

    public void Dispose() => TraceLog?.Dispose();
}
