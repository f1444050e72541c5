using EtwSerializerProfiler.Common;

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
    public SampledCpu Cpu { get; init; } = SampledCpu.None;
    public double CpuMs => Cpu.CpuMs;
    public int Samples => Cpu.Samples;
    public IReadOnlyDictionary<string, double> Tags => Cpu.Tags;
    /// <summary>Allocations, exceptions, lock waits and JIT over the whole trace; sites carry their stack tag.</summary>
    public ActivityCounters Counters { get; init; } = ActivityCounters.None;

}

/// <summary>The recorded process over the whole trace: GCs and what the threads add up to.</summary>
public sealed record ProcessProfile
{
    /// <summary>GCs by generation, the counts a run has for its window (<see cref="RunAnalysis.GcCount"/>).</summary>
    public GcCounts GcCount { get; init; } = GcCounts.Zero;
    public int Gen0 => GcCount.Gen0;
    public int Gen1 => GcCount.Gen1;
    public int Gen2 => GcCount.Gen2;
    public double GcPauseMs { get; init; }
    public double MaxGcPauseMs { get; init; }
    /// <summary>The threads' CPU added up: the denominator of the library shares and the whole-trace hot methods.</summary>
    public double CpuMs { get; init; }
    /// <summary>CPU by module, inclusive (most first); filled for a trace without runs.</summary>
    public IReadOnlyList<LibraryCpu> Modules { get; init; } = [];
    /// <summary>CPU by namespace, inclusive (most first); filled for a trace without runs.</summary>
    public IReadOnlyList<LibraryCpu> Namespaces { get; init; } = [];
    /// <summary>Method -> (exclusive ms, inclusive ms) over every thread, for a trace without runs; filled only for --top.</summary>
    public IReadOnlyDictionary<string, HotMethod>? HotMethods { get; init; }
}
