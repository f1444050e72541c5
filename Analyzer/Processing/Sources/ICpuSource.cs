using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Samples;
using EtwSerializerProfiler.Analyzer.Timeline;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing.Sources;

/// <summary>
/// One place a trace's CPU samples come from: EventPipe's sampler (<see cref="EventPipeCpu"/>), ETW's profile
/// interrupts (<see cref="EtwProfileCpu"/>) or the Linux kernel session (<see cref="KernelSessionCpu"/>). The pass
/// opens the registered ones (<see cref="CpuSources"/>) when it opens the trace; the first that supplies the CPU
/// once the pass is over is the trace's source. Everything a source does differently is here: the pass and the
/// charger (<see cref="SampleCharger"/>) never ask which source it is.
/// </summary>
/// <remarks>
/// The stages, in order: <see cref="Subscribe"/> in the pass; then <see cref="Supplies"/>, <see cref="Plan"/>, the
/// charge, <see cref="Charged"/> for each run, <see cref="Finish"/>, <see cref="ThreadName"/> for each thread and
/// <see cref="Describe"/>.
/// </remarks>
internal interface ICpuSource
{
    /// <summary>What its figures mean, written with each analysis (two sources can share one).</summary>
    CpuSourceKind Kind { get; }

    /// <summary>Why its CPU column can disagree with the benchmark's thread CPU clock: the cpu-bias finding's reason.</summary>
    string BiasReason { get; }

    /// <summary>In the pass: subscribes to the samples the trace's events carry. A source read beside the pass takes none.</summary>
    void Subscribe(TraceEventDispatcher source, PassSamples pass) { }

    /// <summary>Once the pass is over: whether it supplies the trace's CPU columns; false leaves them to the next source.</summary>
    bool Supplies(CpuCharge cpu) => true;

    /// <summary>Its samples and what the charger gets with them (precise totals).</summary>
    CpuPlan Plan(CpuCharge cpu);

    /// <summary>A run has its charge: figures only this source has (EventPipe's GC-poll leaves).</summary>
    void Charged(RunDraft run, CpuAccount charged) { }

    /// <summary>Every run is charged: what the charge cannot know (runs after a cut kernel session).</summary>
    void Finish(CpuCharge cpu) { }

    /// <summary>A thread's name as the source saw it (perf's comm), for threads the trace left unnamed.</summary>
    string? ThreadName(int threadId, CpuCharge cpu) => null;

    /// <summary>The trace's "CPU:" line (<see cref="TraceInfo.SamplingSource"/>), its sample interval and unresolved share; a warning when it had no samples.</summary>
    void Describe(CpuCharge cpu, SampleCharges charged);

    /// <summary>Charged beside another source's columns, to show its bias (<see cref="RunDraft.EventPipeCpu"/>).</summary>
    bool ShowsBias => false;

    /// <summary>Writes what it said of the runs beside the trace's source.</summary>
    void WriteBias(SampleCharges sampled, IReadOnlyList<RunDraft> runs) { }
}

/// <summary>What a source subscribes with in the pass: the pass's stacks, and whose events count.</summary>
internal sealed record PassSamples(EventStacks Stacks, IProcessScope Scope);

/// <summary>What a source sees once the pass is over: the analysis with its final run windows, the time line, the GC pauses, the kernel session.</summary>
internal sealed record CpuCharge(AnalysisDraft Analysis, PassTimeline Timeline, GcPauses Pauses, KernelSession? Session);

/// <summary>How a source's samples are charged.</summary>
internal sealed record CpuPlan(SampleStream Stream)
{
    /// <summary>Its samples come chunk by chunk as the kernel session is read (<see cref="KernelChunkPass"/>), not whole from <see cref="Stream"/>.</summary>
    public bool ChargedByChunks { get; init; }

    /// <summary>The switch walk the kernel session's chunks feed, behind the precise totals.</summary>
    public SwitchCpuTime.Walk? Switches { get; init; }

    /// <summary><see cref="SampleCharger.PreciseRunMs"/>.</summary>
    public Func<RunDraft, double?>? PreciseRunMs { get; init; }

    /// <summary><see cref="SampleCharger.PreciseThreadsMs"/>.</summary>
    public Func<IReadOnlyList<(int ThreadId, double FirstMs, double LastMs)>, double?[]>? PreciseThreadsMs { get; init; }
}
