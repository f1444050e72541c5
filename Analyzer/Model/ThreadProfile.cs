namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// One thread over the whole trace, runs or not: what the seeds did in WPA with stack tags over a whole trace. For
/// traces of any app (no benchmark runs) this is the analysis; with runs it is kept for the JSON.
/// </summary>
public sealed class ThreadProfile
{
    public required int ThreadId { get; init; }
    public string? Name { get; internal set; }
    /// <summary>Sampled managed time (EventPipe) or on-CPU time (kernel session), as the trace's CPU source says.</summary>
    public double CpuMs { get; internal set; }
    public int Samples { get; internal set; }
    public IReadOnlyDictionary<string, double> Tags => TagTable;
    internal Dictionary<string, double> TagTable { get; } = new(StringComparer.Ordinal);
    /// <summary>Allocations, exceptions, lock waits and JIT over the whole trace; sites carry their stack tag.</summary>
    public ActivityCounters Counters { get; } = new() { SitesByTag = true };

    public bool Active => Samples > 0 || Counters.Any;
}

/// <summary>The recorded process over the whole trace: GCs and what the threads add up to.</summary>
public sealed class ProcessProfile
{
    public int Gen0 { get; internal set; }
    public int Gen1 { get; internal set; }
    public int Gen2 { get; internal set; }
    public double GcPauseMs { get; internal set; }
    public double MaxGcPauseMs { get; internal set; }
    public int GcCount => Gen0 + Gen1 + Gen2;
}
