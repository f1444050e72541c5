namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// One thread over the whole trace, runs or not: what the seeds did in WPA with stack tags over a whole trace. For
/// traces of any app (no benchmark runs) this is the analysis; with runs it is kept for the JSON. Immutable: the pass
/// fills a <see cref="ThreadDraft"/>.
/// </summary>
public sealed record ThreadProfile
{
    internal ThreadProfile() { }

    public required int ThreadId { get; init; }
    public string? Name { get; init; }
    /// <summary>Sampled managed time (EventPipe) or on-CPU time (kernel session), as the trace's CPU source says.</summary>
    public double CpuMs { get; init; }
    public int Samples { get; init; }
    public IReadOnlyDictionary<string, double> Tags { get; init; } = Empty<string>.Map;
    /// <summary>Allocations, exceptions, lock waits and JIT over the whole trace; sites carry their stack tag.</summary>
    public ActivityCounters Counters { get; init; } = new();

}

/// <summary>The recorded process over the whole trace: GCs and what the threads add up to.</summary>
public sealed record ProcessProfile
{
    public int Gen0 { get; init; }
    public int Gen1 { get; init; }
    public int Gen2 { get; init; }
    public double GcPauseMs { get; init; }
    public double MaxGcPauseMs { get; init; }
    public int GcCount => Gen0 + Gen1 + Gen2;
}
