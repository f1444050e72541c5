namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>One thread while the pass fills it in: the collectors count into it, the CPU charge writes its columns.</summary>
internal sealed class ThreadDraft
{
    public required int ThreadId { get; init; }
    public string? Name { get; set; }
    public double CpuMs { get; set; }
    public int Samples { get; set; }
    public Dictionary<string, double> TagTable { get; } = new(StringComparer.Ordinal);
    public ActivityTally Counters { get; } = new() { SitesByTag = true };
    public bool Active => Samples > 0 || Counters.Any;

    public ThreadProfile Freeze() => new() { ThreadId = ThreadId, Name = Name, Cpu = new SampledCpu(CpuMs, Samples, TagTable), Counters = Counters.Freeze() };
}
