namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// A charged sample as the call trees draw it: its frames leaf first and the weight it was charged with, so the
/// trees add up to the tables. <see cref="Pause"/>: a GC pause (the runtime stopped the thread; no stack);
/// <see cref="InGc"/> without it: GC work the thread did (its frames are the stripped runtime's). <typeparamref name="TRun"/>
/// is the model's <see cref="RunAnalysis"/>; the analysis charges samples to its drafts and maps them when it freezes.
/// </summary>
public readonly record struct ChargedSample<TRun>(TRun? Run, int ThreadId, double TimeMs, StackTags.StackFrame[] Frames, double WeightMs, bool InGc, bool Pause)
    where TRun : class
{
    /// <summary>What the trace's events say the runtime was doing, in the hot-method tables' words ("native", "JIT", ...): the call trees name unnamed code by it.</summary>
    internal string? Work { get; init; }

    /// <summary>The sample's stack tag, as the tables charged it ("GC", "Reflection\Invoke", ...).</summary>
    public string? Tag { get; init; }
}

/// <summary>The samples the analysis charged, kept for the report's call trees and speedscope files (no second pass over the trace).</summary>
public sealed class SampleLedger<TRun>(CpuSourceKind source, IReadOnlyList<ChargedSample<TRun>> runs, IReadOnlyList<ChargedSample<TRun>> threads, IReadOnlyList<Interval> gcPauses, double periodMs)
    where TRun : class
{
    public CpuSourceKind Source { get; } = source;
    /// <summary>Every sample charged to a run, warm-ups included (the report leaves them out, as the tables do).</summary>
    public IReadOnlyList<ChargedSample<TRun>> RunSamples { get; } = runs;
    /// <summary>A trace without runs, or with <see cref="AnalyzerOptions.KeepMarks"/>: every sample on its thread, weighed over the whole trace.</summary>
    public IReadOnlyList<ChargedSample<TRun>> ThreadSamples { get; } = threads;
    /// <summary>The process's GC pauses (suspensions that ran a GC), in time order.</summary>
    public IReadOnlyList<Interval> GcPauses { get; } = gcPauses;
    /// <summary>A timer sampler's period; 0 for EventPipe's gap-weighted samples.</summary>
    public double PeriodMs { get; } = periodMs;

    /// <summary>The same samples charged to other run objects (the drafts' frozen runs); null where <paramref name="map"/> says so.</summary>
    internal SampleLedger<TOther> Select<TOther>(Func<TRun, TOther?> map) where TOther : class
    {
        ChargedSample<TOther> Map(ChargedSample<TRun> s) => new(s.Run is null ? null : map(s.Run), s.ThreadId, s.TimeMs, s.Frames, s.WeightMs, s.InGc, s.Pause) { Work = s.Work, Tag = s.Tag };
        return new SampleLedger<TOther>(Source, [.. RunSamples.Select(Map)], [.. ThreadSamples.Select(Map)], GcPauses, PeriodMs);
    }
}
