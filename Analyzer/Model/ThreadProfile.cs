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
    public long AllocatedBytes { get; set; }
    /// <summary>Allocation-tick bytes by the type being allocated when the tick fired (about one tick per 100 KB).</summary>
    public Dictionary<string, long> AllocatedBytesByType { get; } = new(StringComparer.Ordinal);
    public int Exceptions { get; set; }
    /// <summary>"Type at Module!Method [stack tag]" -> count.</summary>
    public Dictionary<string, int> ExceptionsByTypeAndFrame { get; } = new(StringComparer.Ordinal);
    public double ContentionMs { get; set; }
    public int Contentions { get; set; }
    /// <summary>"Module!Method [stack tag]" of the code that wanted the lock -> ms waited.</summary>
    public Dictionary<string, double> ContentionMsByFrame { get; } = new(StringComparer.Ordinal);
    public double JitMs { get; set; }
    public int JitMethods { get; set; }

    public bool Active => Samples > 0 || AllocatedBytes > 0 || Exceptions > 0 || Contentions > 0 || JitMethods > 0;
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
