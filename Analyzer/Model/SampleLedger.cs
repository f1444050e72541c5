namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// A charged sample as the call trees draw it: its frames leaf first and the weight it was charged with, so the
/// trees add up to the tables. <see cref="Pause"/>: a GC pause (the runtime stopped the thread; no stack);
/// <see cref="InGc"/> without it: GC work the thread did (its frames are the stripped runtime's).
/// </summary>
public readonly record struct ChargedSample(RunAnalysis? Run, int ThreadId, double TimeMs, StackTags.StackFrame[] Frames, double WeightMs, bool InGc, bool Pause);

/// <summary>The samples the analysis charged, kept for the report's call trees and speedscope files (no second pass over the trace).</summary>
public sealed class SampleLedger(CpuSourceKind source, IReadOnlyList<ChargedSample> runs, IReadOnlyList<ChargedSample> threads, IReadOnlyList<PauseWindow> gcPauses, double periodMs)
{
    public CpuSourceKind Source { get; } = source;
    /// <summary>Every sample charged to a run, warm-ups included (the report leaves them out, as the tables do).</summary>
    public IReadOnlyList<ChargedSample> RunSamples { get; } = runs;
    /// <summary>A trace without runs: every sample on its thread.</summary>
    public IReadOnlyList<ChargedSample> ThreadSamples { get; } = threads;
    /// <summary>The process's GC pauses (suspensions that ran a GC), in time order.</summary>
    public IReadOnlyList<PauseWindow> GcPauses { get; } = gcPauses;
    /// <summary>A timer sampler's period; 0 for EventPipe's gap-weighted samples.</summary>
    public double PeriodMs { get; } = periodMs;
}
