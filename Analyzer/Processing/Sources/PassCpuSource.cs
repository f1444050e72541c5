using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Samples;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing.Sources;

/// <summary>
/// A sampler whose samples are events of the trace itself (EventPipe's, ETW's): collected in the pass, charged
/// whole. Says what the samples were, their interval and the share that ends in unnamed code; with no samples at all,
/// the CPU columns are unknown, not zero.
/// </summary>
internal abstract class PassCpuSource : ICpuSource
{
    /// <summary>Every sample of the process the sampler took, charged or not.</summary>
    protected int SampleCount { get; set; }

    public abstract CpuSourceKind Kind { get; }
    public abstract string BiasReason { get; }

    /// <summary>The "CPU:" line: what the samples measure.</summary>
    protected abstract string SamplingSource { get; }

    /// <summary>The sampler's interval as observed, or null.</summary>
    protected abstract double? ObservedIntervalMs { get; }

    /// <summary>Said when the trace has none of its samples.</summary>
    protected abstract string NoSamplesWarning { get; }

    public abstract void Subscribe(TraceEventDispatcher source, PassSamples pass);

    public abstract CpuPlan Plan(CpuCharge cpu);

    public void Describe(CpuCharge cpu, SampleCharges charged)
    {
        var analysis = cpu.Analysis;
        analysis.Trace = analysis.Trace with
        {
            SamplingSource = SamplingSource,
            ObservedSampleIntervalMs = ObservedIntervalMs,
            UnresolvedSampleShare = SampleCount == 0 ? 0 : (double)charged.UnnamedLeafRunSamples / SampleCount,
        };
        if (SampleCount > 0) return;
        foreach (var run in analysis.Runs) run.CpuKnown = false;
        analysis.WarningList.Add(NoSamplesWarning);
    }
}
