using EtwSerializerProfiler.Analyzer.Samples;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>
    /// The pass only collects the samplers' samples (EventPipe's SampleProfiler, ETW's profile
    /// interrupts); they are charged once the run windows and GC pauses are all known (<see cref="SampleCharger"/>).
    /// </summary>
    private sealed partial class PassState
    {
        private readonly List<CpuSample> _eventPipeSamples = [];
        private readonly List<CpuSample> _etwSamples = [];

        private void OnSample(TraceEvent e)
        {
            _samples++;
            var now = e.TimeStampRelativeMSec;
            // Every sample moves the thread's clock, managed or not: a sample stands for the time since the thread's previous one.
            var since = _weigher.Previous(e.ThreadID, now);
            if (!IsManagedSample(e)) return;
            _eventPipeSamples.Add(new CpuSample(e.ThreadID, now, stacks.StackOf(e), InGc: false, since, _weigher.CapMs));
        }

        /// <summary>A kernel profile interrupt: on-CPU time, one sampling interval per sample, any thread of the process.</summary>
        private void OnKernelSample(Microsoft.Diagnostics.Tracing.Parsers.Kernel.SampledProfileTraceData e)
        {
            if (!InProcess(e)) return;
            _samples++;
            var t = e.TimeStampRelativeMSec;
            _etwSamples.Add(new CpuSample(e.ThreadID, t, stacks.StackOf(e), InGc: false, t, kernelSampleMs));
        }

        private static bool IsManagedSample(TraceEvent e)
        {
            var type = e.PayloadValue(0);
            return type switch
            {
                string s => s == "Managed",
                null => true,
                _ => PayloadFields.Int32Of(type) == 2,
            };
        }
    }
}
