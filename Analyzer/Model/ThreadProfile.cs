namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// One thread over the whole trace, runs or not: what the seeds did in WPA with stack tags over a whole trace. For
/// traces of any app (no benchmark runs) this is the analysis; with runs it is kept for the JSON.
/// </summary>
public sealed class ThreadProfile
{
    public required int ThreadId { get; init; }
    public string? Name { get; set; }
    /// <summary>Sampled managed time (EventPipe) or on-CPU time (kernel session), as the trace's CPU source says.</summary>
    public double CpuMs { get; set; }
    public int Samples { get; set; }
    public Dictionary<string, double> Tags { get; } = new(StringComparer.Ordinal);
    /// <summary>Allocations, exceptions, lock waits and JIT over the whole trace; sites carry their stack tag.</summary>
    public ActivityCounters Counters { get; } = new() { SitesByTag = true };

    public bool Active => Samples > 0 || Counters.Any;
}

/// <summary>The recorded process over the whole trace: GCs and what the threads add up to.</summary>
public sealed class ProcessProfile
{
    public int Gen0 { get; set; }
    public int Gen1 { get; set; }
    public int Gen2 { get; set; }
    public double GcPauseMs { get; set; }
    public double MaxGcPauseMs { get; set; }
    public int GcCount => Gen0 + Gen1 + Gen2;
}
