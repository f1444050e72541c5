using System.Collections;
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
        var inGc = new bool[kernel.Samples.Count];
        var walk = pauses.Walk();
        for (var i = 0; i < inGc.Length; i++) inGc[i] = walk.Contains(clock.ToRelativeMs(kernel.Samples[i].TimeNs));
        return new SampleStream(CpuSourceKind.Perf, new Samples(kernel.Samples, clock, inGc, kernel.SamplePeriodMs), stacks, kernel.SamplePeriodMs);
    }

    /// <summary>
    /// The samples as read, seen as <see cref="CpuSample"/>s made on each read (the same arithmetic on the same
    /// record every time): a copy would be 40 more bytes per sample alive through the charge, the largest array a
    /// long trace kept (docs/analyzer.md, "Eleventh stop"). Only whether each is in a GC pause is stored.
    /// </summary>
    private sealed class Samples(ChunkedList<KernelSample> kernel, KernelClock clock, bool[] inGc, double periodMs) : IReadOnlyList<CpuSample>
    {
        public int Count => kernel.Count;

        public CpuSample this[int index]
        {
            get
            {
                var s = kernel[index];
                var ms = clock.ToRelativeMs(s.TimeNs);
                return new CpuSample(s.ThreadId, ms, s.StackId, inGc[index], ms, periodMs);
            }
        }

        public IEnumerator<CpuSample> GetEnumerator()
        {
            for (var i = 0; i < Count; i++) yield return this[i];
        }

        IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
    }
}
