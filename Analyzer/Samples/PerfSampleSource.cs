using System.Collections;
using EtwSerializerProfiler.Analyzer.Collections;
using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Stacks;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>The kernel session's CPU samples on the EventPipe trace's time line, each one sample period, marked when taken in a GC pause.</summary>
internal static class PerfSampleSource
{
    /// <summary>A trace read whole.</summary>
    public static SampleStream Stream(KernelTrace kernel, KernelFrameNamer namer, StackTagFile? tags, KernelClock clock, GcPauses pauses, out PerfStacks stacks)
    {
        stacks = new PerfStacks(kernel, namer, tags);
        return Stream(kernel, stacks, clock, pauses.Walk());
    }

    /// <summary>
    /// One chunk of a trace read in chunks: its stacks named into <paramref name="named"/> (shared by every chunk, so
    /// a named stack is one array throughout), whether in a GC pause from the cursor the chunks walk in turn.
    /// </summary>
    public static SampleStream Stream(KernelTrace chunk, KernelFrameNamer namer, PerfStacks.Named named, KernelClock clock, GcPauses.Cursor pauses) =>
        Stream(chunk, new PerfStacks(chunk, namer, named), clock, pauses);

    /// <summary>The kind and period of the source, with no samples: the charge is fed its chunks as they are read.</summary>
    public static SampleStream Empty(double periodMs) => new(CpuSourceKind.Perf, [], new PerfStacks(new KernelTrace(), new KernelFrameNamer(new KernelTrace(), ManagedCodeMap.Empty), tags: null), periodMs);

    private static SampleStream Stream(KernelTrace kernel, PerfStacks stacks, KernelClock clock, GcPauses.Cursor walk)
    {
        var inGc = new bool[kernel.Samples.Count];
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
