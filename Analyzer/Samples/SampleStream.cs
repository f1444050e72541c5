using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Stacks;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>One sampler's samples of the recorded process, in time order, with its stacks.</summary>
internal sealed class SampleStream(CpuSourceKind kind, IReadOnlyList<CpuSample> samples, ISampleStacks stacks, double periodMs)
{
    public const int NoStack = -1;

    public CpuSourceKind Kind { get; } = kind;
    /// <summary>In time order; a source may make them on each read (PerfSampleSource), so read each by index.</summary>
    public IReadOnlyList<CpuSample> Samples { get; } = samples;
    public ISampleStacks Stacks { get; } = stacks;
    /// <summary>A timer sampler's period: each sample's weight. 0 for EventPipe, whose samples weigh the gap before them.</summary>
    public double PeriodMs { get; } = periodMs;
    public bool GapWeighted => PeriodMs <= 0;
}
