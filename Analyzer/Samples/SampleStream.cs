using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>One sampler's samples of the recorded process, in time order, with its stacks.</summary>
internal sealed class SampleStream(CpuSourceKind kind, List<CpuSample> samples, ISampleStacks stacks, double periodMs)
{
    public const int NoStack = -1;

    public CpuSourceKind Kind { get; } = kind;
    public List<CpuSample> Samples { get; } = samples;
    public ISampleStacks Stacks { get; } = stacks;
    /// <summary>A timer sampler's period: each sample's weight. 0 for EventPipe, whose samples weigh the gap before them.</summary>
    public double PeriodMs { get; } = periodMs;
    public bool GapWeighted => PeriodMs <= 0;
}
