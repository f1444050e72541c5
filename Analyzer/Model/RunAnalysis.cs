using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>Identifies a run across traces and runtimes: never by address, thread or module.</summary>
public readonly record struct RunKey(string Serializer, string Operation, int Objects, int Run);

/// <summary>How a run's window was found, best first; written by its <see cref="WireNameAttribute"/> in every format.</summary>
public enum WindowSource
{
    /// <summary>The marker thread's wait (WaitHandle events on EventPipe, context switches on ETW).</summary>
    [WireName("marker-wait")] MarkerWait,
    /// <summary>RunStart/RunStop events only: includes the few microseconds of bookkeeping around the run.</summary>
    [WireName("run-events")] RunEvents,
    /// <summary>Another harness's events around an iteration (BenchmarkDotNet's engine events, next to its clock reads).</summary>
    [WireName("harness-events")] HarnessEvents,
}

/// <summary>
/// Everything the trace says about one measured run: immutable, made by the analysis once every stage is done
/// (<see cref="RunDraft.Freeze"/>), so reports, findings and diff read the same figures whatever order they run in.
/// </summary>
public sealed record RunAnalysis
{
    internal RunAnalysis() { }

    public required RunKey Key { get; init; }
    public string Data { get; init; } = "";
    public int MarkerThreadId { get; init; }
    public int WorkerThreadId { get; init; }
    public double StartMs { get; init; }
    public double EndMs { get; init; }
    public WindowSource Source { get; init; }
    /// <summary>Another harness's iteration kind (BenchmarkDotNet: "workload actual", "workload pilot", ...); null for the benchmark's runs.</summary>
    public string? Stage { get; init; }
    /// <summary>RunStop version 2: the process's first-chance exceptions during the run, counted in-process (RunMarkers); null before.</summary>
    public long? InProcessExceptions { get; init; }
    /// <summary>The benchmark's own Stopwatch duration, carried by RunStop.</summary>
    public double? StopwatchMs { get; init; }
    public double DurationMs => EndMs - StartMs;
    /// <summary>The marker thread's own wait, as WPA shows it; the window itself is refined by RunBegin/RunEnd.</summary>
    public double? MarkerWaitStartMs { get; init; }
    public double? MarkerWaitEndMs { get; init; }
    public double? MarkerWaitMs => MarkerWaitEndMs - MarkerWaitStartMs;
    /// <summary>The window is exactly the Stopwatch's interval (RunEnd version 1 carried its reads), not the events' edges around it.</summary>
    public bool PinnedToStopwatch { get; init; }
    /// <summary>A window pinned to the Stopwatch: where the worker's RunBegin/RunEnd events themselves were (what the marker's handshake is next to).</summary>
    public (double StartMs, double EndMs)? EventEdgesMs { get; init; }

    /// <summary>The run's CPU from the trace's one CPU source, as the charge wrote it: the same figures a thread has (<see cref="ThreadProfile.Cpu"/>).</summary>
    public SampledCpu Cpu { get; init; } = SampledCpu.None;
    public double CpuMs => Cpu.CpuMs;
    /// <summary>
    /// False when no CPU source covers the run: a trace without samples, or a kernel session that ends before the run
    /// does (a killed recorder). Its CPU figures are then missing (`-`, JSON null, CSV empty), never 0.
    /// </summary>
    public bool CpuKnown { get; init; } = true;
    public int Samples => Cpu.Samples;
    public IReadOnlyDictionary<string, double> Tags => Cpu.Tags;
    /// <summary>GCs that started inside the window, by generation: the same figures the process has (<see cref="ProcessProfile.GcCount"/>) and the benchmark measured in-process (<see cref="RunResult.GcCount"/>).</summary>
    public GcCounts GcCount { get; init; } = GcCounts.Zero;
    public int Gen0 => GcCount.Gen0;
    public int Gen1 => GcCount.Gen1;
    public int Gen2 => GcCount.Gen2;
    /// <summary>Time the runtime was stopped for GCs, from SuspendEEStart to RestartEEStop (PerfView's pause).</summary>
    public double GcPauseMs { get; init; }
    /// <summary>
    /// The part of GcPauseMs spent bringing threads to a safe point (SuspendEEStart to SuspendEEStop). Blocking
    /// GCs leave it out of GC.GetTotalPauseDuration; a large share means threads are slow to reach safe points.
    /// </summary>
    public double GcSuspendMs { get; init; }
    /// <summary>The part of GcPauseMs spent letting threads go again (RestartEEStart to RestartEEStop).</summary>
    public double GcRestartMs { get; init; }
    /// <summary>Allocations, exceptions, lock waits and JIT inside the window, as the collectors charged them (sites without tags).</summary>
    public ActivityCounters Counters { get; init; } = ActivityCounters.None;
    public RunResult? InProcess { get; init; }

    /// <summary>
    /// EventPipe SampleProfiler's figures for this run when a kernel session supplied the CPU columns above: kept
    /// to show the sampler's bias against on-CPU truth (docs/analyzer.md, "Accuracy").
    /// </summary>
    public SampledCpu? EventPipeCpu { get; init; }
    /// <summary>Kernel session: the worker's time off the CPU inside the window, by reason (preempted, ready, GC, lock, ...).</summary>
    public IReadOnlyDictionary<OffCpuReason, double> OffCpuMs { get; init; } = Empty<OffCpuReason>.Map;
    /// <summary>Whether the other threads' CPU was measured: a kernel session with context switches (unknown on EventPipe alone).</summary>
    public bool OtherThreadsKnown { get; init; }
    /// <summary>
    /// Kernel session: on-CPU time inside the window of the process's threads that are not the run's (the worker and its
    /// crew), by what they do: background GC, tiering's JIT, the finalizer, the tracer's threads, the rest.
    /// </summary>
    public IReadOnlyDictionary<ThreadRole, double> OtherThreadsCpu { get; init; } = Empty<ThreadRole>.Map;
    /// <summary>The other threads' CPU in the window, all roles (<see cref="OtherThreadsCpu"/>); null when unknown (or the run's CPU is: a cut session).</summary>
    public double? OtherThreadsCpuMs => OtherThreadsKnown && CpuKnown ? OtherThreadsCpu.Values.Sum() : null;
    /// <summary>The process's CPU in the window from the trace: the run's threads' and the others'; null when either is unknown.</summary>
    public double? ProcessCpuMs => CpuKnown && OtherThreadsCpuMs is { } other ? CpuMs + other : null;
    /// <summary>CPU time by the optimization tier of the innermost managed frame (tier-0, instrumented, OSR, tier-1, ReadyToRun).</summary>
    public IReadOnlyDictionary<CodeTier, double> TierMs { get; init; } = Empty<CodeTier>.Map;
    /// <summary>CPU time whose stack had no managed frame with a known tier (native-only stacks, unresolved code).</summary>
    public double NoTierMs { get; init; }
    /// <summary>CPU time whose innermost frame has no name (stripped native runtime code, stubs): how much the tags and hot methods cannot name.</summary>
    public double UnnamedLeafMs { get; init; }
    /// <summary>The part of <see cref="UnnamedLeafMs"/> that the trace's events do not explain either (not in a GC pause, JIT or type load span, not a stub): native runtime time nobody can name.</summary>
    public double UnexplainedLeafMs { get; init; }
    /// <summary>The marker's wait as the kernel saw it: switched out into its wait, woken after RunEnd (WPA's CSwitch/ReadyThread view).</summary>
    public double? SwitchWaitStartMs { get; init; }
    public double? SwitchWaitEndMs { get; init; }
    /// <summary>EventPipe samples of this run whose leaf is a GC-poll helper: where safe-point sampling piles samples up.</summary>
    public int GcPollLeafSamples { get; init; }

    public bool IsWarmup { get; init; }
    /// <summary>
    /// A measured iteration another harness's statistics leave out (BenchmarkDotNet's default OutlierMode.RemoveUpper:
    /// above the upper Tukey fence of its case's workload-actual iterations). Shown, never averaged.
    /// </summary>
    public bool IsOutlier { get; init; }
    /// <summary>What the tables average: neither a warm-up nor a harness's outlier.</summary>
    public bool IsMeasured => !IsWarmup && !IsOutlier;
    /// <summary>
    /// The harness's own overhead inside the window, which its result subtracts (BenchmarkDotNet: the median of the
    /// case's overhead-actual iterations, an empty method called as many times); 0 for the benchmark's runs.
    /// </summary>
    public double OverheadMs { get; init; }
    /// <summary>The window less the harness's overhead, never below 0: what Mean/Min ms average (BenchmarkDotNet's result iteration).</summary>
    public double ResultMs => Math.Max(0, DurationMs - OverheadMs);
    /// <summary>
    /// What RunStart said (version 1 events), or what the analyzer inferred for runs found without their names
    /// (<see cref="TraceInfo.InferredNames"/>); null for older traces, where run 0 is the warm-up.
    /// </summary>
    public bool? WarmupFromEvents { get; init; }
    /// <summary>
    /// Serializer calls inside the window per calling thread (RunStart version 1; 1 before; a BenchmarkDotNet
    /// iteration's total operations, which can pass int's range). The window's time per operation (Mean ms) divides by
    /// it: with a crew (--threads T) each of those operations is T calls at once, as the benchmark's Mean ms is.
    /// </summary>
    public long Operations { get; init; } = 1;
    /// <summary>
    /// Other threads that worked for the run besides the worker (RunThread events: the benchmark's --threads crew):
    /// their CPU, stack tags, hot methods, off-CPU time and events inside the window are the run's. Empty for one thread.
    /// </summary>
    public IReadOnlyList<int> CrewThreadIds { get; init; } = [];
    /// <summary>Threads that made the run's calls: the crew's size, or 1 (the worker).</summary>
    public int CallingThreads => Math.Max(1, CrewThreadIds.Count);
    /// <summary>
    /// Serializer calls in the run over every calling thread (<see cref="Operations"/> x <see cref="CallingThreads"/>):
    /// what the run's CPU, off-CPU, GC, allocation and event figures are divided by to be per operation.
    /// </summary>
    public long Calls => Operations * CallingThreads;

    /// <summary>
    /// Sampled time outside GC: what reflection and Activator shares are shares of. GC pauses (EventPipe) or GC
    /// frames (ETW) are time the serializer's own code did not run, whatever made it collect.
    /// </summary>
    public double NonGcSampledMs => Tags.Values.Sum() - TagMs("GC");

    /// <summary>Sum of sampled time in tags whose path starts with the prefix (e.g. "Reflection").</summary>
    public double TagMs(string prefix) => TagSums.Under(Tags, prefix);
}


/// <summary>CPU figures from one sampling source: a run's, a thread's, or a run's from EventPipe's sampler beside a kernel session's.</summary>
public sealed record SampledCpu(double CpuMs, int Samples, IReadOnlyDictionary<string, double> Tags)
{
    public static readonly SampledCpu None = new(0, 0, Empty<string>.Map);

    public double TagMs(string prefix) => TagSums.Under(Tags, prefix);
    public double NonGcMs => Tags.Values.Sum() - TagMs("GC");
}
