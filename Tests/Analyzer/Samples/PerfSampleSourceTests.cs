using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Samples;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Tests.Analyzer.Samples;

/// <summary>The kernel session's samples as the charge reads them: on the trace's time line, one period each, marked in a GC pause.</summary>
public sealed class PerfSampleSourceTests
{
    private const long Origin = 7_000_000_000; // perf's CLOCK_MONOTONIC at the trace's 0 ms

    [Fact]
    public void Each_sample_is_on_the_traces_clock_one_period_and_marked_when_in_a_gc_pause_however_often_it_is_read()
    {
        var kernel = new KernelTrace { SamplePeriodMs = 1.001 };
        foreach (var (ms, thread, stack) in new[] { (10.0, 5, 0), (15.5, 6, KernelTrace.NoStack), (16.0, 5, 0), (30.25, 5, 0) })
            kernel.Samples.Add(new KernelSample(Origin + (long)(ms * 1_000_000), thread, stack));
        kernel.Stacks.Intern([kernel.Frames.Count]);
        kernel.Frames.Add(new RawFrame(0x1000, "work", "libwork.so", Kernel: false));
        var clock = new KernelClock();
        clock.Observe(Origin, 0);
        clock.Observe(Origin + 1_000_000_000, 1000);

        var stream = PerfSampleSource.Stream(kernel, new KernelFrameNamer(kernel, ManagedCodeMap.Empty), null, clock, new GcPauses([new Interval(15, 16)]), out _);

        Assert.Equal((CpuSourceKind.Perf, 1.001, false), (stream.Kind, stream.PeriodMs, stream.GapWeighted));
        CpuSample[] expected =
        [
            new(5, 10.0, 0, false, 10.0, 1.001),
            new(6, 15.5, KernelTrace.NoStack, true, 15.5, 1.001),
            new(5, 16.0, 0, false, 16.0, 1.001), // a pause's end is outside it
            new(5, 30.25, 0, false, 30.25, 1.001),
        ];
        Assert.Equal(expected, stream.Samples);
        // Read again by index, out of order: the same values (the charge reads each sample several times).
        Assert.Equal(expected[3], stream.Samples[3]);
        Assert.Equal(expected[1], stream.Samples[1]);
        Assert.Equal(4, stream.Samples.Count);
    }
}
