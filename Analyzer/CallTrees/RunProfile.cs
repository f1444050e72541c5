namespace EtwSerializerProfiler.Analyzer.CallTrees;

/// <summary>The sampled stacks of one serializer and operation over its measured runs.</summary>
public sealed class RunProfile
{
    public required string Serializer { get; init; }
    public required string Operation { get; init; }
    public CallTree Tree { get; } = new();
    public int Samples { get; internal set; }
    public int Runs { get; internal set; }
    /// <summary>Time the runtime was suspended for GC inside these runs (no samples are taken then).</summary>
    public double GcMs { get; internal set; }
    /// <summary>The exported speedscope file, when one was written.</summary>
    public string? SpeedscopePath { get; internal set; }
}
