namespace EtwSerializerProfiler.Analyzer.CallTrees;

/// <summary>The sampled stacks of one serializer, operation and N over its measured runs. Immutable: made once its samples are all in.</summary>
public sealed class RunProfile
{
    public required string Serializer { get; init; }
    public required string Operation { get; init; }
    /// <summary>N, the object count, as the per-operation tables key their rows; 0 for a case without one (and a thread's whole trace).</summary>
    public int Objects { get; init; }
    public required CallTree Tree { get; init; }
    public int Samples { get; init; }
    public int Runs { get; init; }
    /// <summary>Time the runtime was suspended for GC inside these runs (no samples are taken then).</summary>
    public double GcMs { get; init; }
    /// <summary>The speedscope file of this profile, when the stacks were collected for a --speedscope folder and it has samples.</summary>
    public string? SpeedscopePath { get; init; }
}
