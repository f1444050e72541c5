using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>The kernel session's CPU samples on the EventPipe trace's time line, each one sample period, marked when taken in a GC pause.</summary>
internal static class PerfSampleSource
{
    public static SampleStream Stream(KernelTrace kernel, KernelFrameNamer namer, StackTagFile? tags, KernelClock clock, GcPauses pauses, out PerfStacks stacks)
    {
        stacks = new PerfStacks(kernel, namer, tags);
        var period = kernel.SamplePeriodMs;
        var samples = new List<CpuSample>(kernel.Samples.Count);
        var inGc = pauses.Walk();
        foreach (var s in kernel.Samples)
        {
            var ms = clock.ToRelativeMs(s.TimeNs);
            samples.Add(new CpuSample(s.ThreadId, ms, s.StackId, inGc.Contains(ms), ms, period));
        }
        return new SampleStream(CpuSourceKind.Perf, samples, stacks, period);
    }
}
