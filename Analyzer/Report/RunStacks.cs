namespace EtwSerializerProfiler.Analyzer.Report;

/// <summary>What the report needs from a second look at the trace: stacks per serializer and operation, and GC pauses.</summary>
public sealed class RunStacks
{
    public required IReadOnlyList<RunProfile> Profiles { get; init; }
    public required IReadOnlyList<PauseWindow> GcPauses { get; init; }
    /// <summary>Where the speedscope files went, when they were written.</summary>
    public string? SpeedscopeDirectory { get; init; }
}
