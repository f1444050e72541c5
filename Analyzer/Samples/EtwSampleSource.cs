using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Stacks;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>
/// ETW's kernel profile interrupts (Windows) as the CPU source: on-CPU time, one interval per sample, each marked when
/// taken inside a GC pause, as the Linux kernel session's are (<see cref="PerfSampleSource"/>), so that GC work in the
/// runtime's unnamed native code is charged to GC by the same rule whichever kernel sampled it. The pass collects the
/// samples before it has seen every pause; they are marked here, once it has.
/// </summary>
internal static class EtwSampleSource
{
    public static SampleStream Stream(List<CpuSample> samples, ISampleStacks stacks, double periodMs, GcPauses pauses)
    {
        for (var i = 0; i < samples.Count; i++)
            samples[i] = samples[i] with { InGc = pauses.Contains(samples[i].TimeMs) };
        return new SampleStream(CpuSourceKind.EtwProfile, samples, stacks, periodMs);
    }
}
