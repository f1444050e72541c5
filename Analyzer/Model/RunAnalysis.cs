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

/// <summary>Everything the trace says about one measured run.</summary>
public sealed class RunAnalysis
{
    /// <summary>Settable only for runs found without their names (marker waits), named afterwards from their samples.</summary>
    public RunKey Key { get; internal set; }
    public string Data { get; internal set; } = "";
    public int MarkerThreadId { get; internal set; }
    public int WorkerThreadId { get; internal set; }
    public double StartMs { get; internal set; }
    public double EndMs { get; internal set; }
    public WindowSource Source { get; internal set; }
    /// <summary>Another harness's iteration kind (BenchmarkDotNet: "workload actual", "workload pilot", ...); null for the benchmark's runs.</summary>
    public string? Stage { get; internal set; }
    /// <summary>The benchmark's own Stopwatch duration, carried by RunStop.</summary>
    public double? StopwatchMs { get; internal set; }
    public double DurationMs => EndMs - StartMs;
    /// <summary>The marker thread's own wait, as WPA shows it; the window itself is refined by RunBegin/RunEnd.</summary>
    public double? MarkerWaitStartMs { get; internal set; }
    public double? MarkerWaitEndMs { get; internal set; }
    public double? MarkerWaitMs => MarkerWaitEndMs - MarkerWaitStartMs;
    internal bool Closed { get; set; }
    /// <summary>The window is exactly the Stopwatch's interval (RunEnd version 1 carried its reads), not the events' edges around it.</summary>
    public bool PinnedToStopwatch { get; internal set; }
    /// <summary>A window pinned to the Stopwatch: where the worker's RunBegin/RunEnd events themselves were (what the marker's handshake is next to).</summary>
    public (double StartMs, double EndMs)? EventEdgesMs { get; internal set; }

    public double CpuMs { get; internal set; }
    public int Samples { get; internal set; }
    public IReadOnlyDictionary<string, double> Tags => TagTable;
    internal Dictionary<string, double> TagTable { get; } = new(StringComparer.Ordinal);
    public int Gen0 { get; internal set; }
    public int Gen1 { get; internal set; }
    public int Gen2 { get; internal set; }
    /// <summary>Time the runtime was stopped for GCs, from SuspendEEStart to RestartEEStop (PerfView's pause).</summary>
    public double GcPauseMs { get; internal set; }
    /// <summary>
    /// The part of GcPauseMs spent bringing threads to a safe point (SuspendEEStart to SuspendEEStop). Blocking
    /// GCs leave it out of GC.GetTotalPauseDuration; a large share means threads are slow to reach safe points.
    /// </summary>
    public double GcSuspendMs { get; internal set; }
    /// <summary>The part of GcPauseMs spent letting threads go again (RestartEEStart to RestartEEStop).</summary>
    public double GcRestartMs { get; internal set; }
    /// <summary>Allocations, exceptions, lock waits and JIT inside the window, as the collectors charged them (sites without tags).</summary>
    public ActivityCounters Counters { get; } = new();
    public RunResult? InProcess { get; internal set; }

    /// <summary>
    /// EventPipe SampleProfiler's figures for this run when a kernel session supplied the CPU columns above: kept
    /// to show the sampler's bias against on-CPU truth (docs/analyzer.md, "Accuracy").
    /// </summary>
    public SampledCpu? EventPipeCpu { get; internal set; }
    /// <summary>Kernel session: the worker's time off the CPU inside the window, by reason (preempted, ready, GC, lock, ...).</summary>
    public IReadOnlyDictionary<string, double> OffCpuMs => OffCpuTable;
    internal Dictionary<string, double> OffCpuTable { get; } = new(StringComparer.Ordinal);
    /// <summary>CPU time by the optimization tier of the innermost managed frame (tier-0, instrumented, OSR, tier-1, ReadyToRun).</summary>
    public IReadOnlyDictionary<CodeTier, double> TierMs => TierTable;
    internal Dictionary<CodeTier, double> TierTable { get; } = [];
    /// <summary>CPU time whose stack had no managed frame with a known tier (native-only stacks, unresolved code).</summary>
    public double NoTierMs { get; internal set; }
    /// <summary>CPU time whose innermost frame has no name (stripped native runtime code, stubs): how much the tags and hot methods cannot name.</summary>
    public double UnnamedLeafMs { get; internal set; }
    /// <summary>The part of <see cref="UnnamedLeafMs"/> that the trace's events do not explain either (not in a GC pause, JIT or type load span, not a stub): native runtime time nobody can name.</summary>
    public double UnexplainedLeafMs { get; internal set; }
    /// <summary>The marker's wait as the kernel saw it: switched out into its wait, woken after RunEnd (WPA's CSwitch/ReadyThread view).</summary>
    public double? SwitchWaitStartMs { get; internal set; }
    public double? SwitchWaitEndMs { get; internal set; }
    /// <summary>EventPipe samples of this run whose leaf is a GC-poll helper: where safe-point sampling piles samples up.</summary>
    public int GcPollLeafSamples { get; internal set; }

    public bool IsWarmup { get; internal set; }
    /// <summary>
    /// A measured iteration another harness's statistics leave out (BenchmarkDotNet's default OutlierMode.RemoveUpper:
    /// above the upper Tukey fence of its case's workload-actual iterations). Shown, never averaged.
    /// </summary>
    public bool IsOutlier { get; internal set; }
    /// <summary>What the tables average: neither a warm-up nor a harness's outlier.</summary>
    public bool IsMeasured => !IsWarmup && !IsOutlier;
    /// <summary>
    /// The harness's own overhead inside the window, which its result subtracts (BenchmarkDotNet: the median of the
    /// case's overhead-actual iterations, an empty method called as many times); 0 for the benchmark's runs.
    /// </summary>
    public double OverheadMs { get; internal set; }
    /// <summary>The window less the harness's overhead, never below 0: what Mean/Min ms average (BenchmarkDotNet's result iteration).</summary>
    public double ResultMs => Math.Max(0, DurationMs - OverheadMs);
    /// <summary>
    /// What RunStart said (version 1 events), or what the analyzer inferred for runs found without their names
    /// (<see cref="TraceInfo.InferredNames"/>); null for older traces, where run 0 is the warm-up.
    /// </summary>
    public bool? WarmupFromEvents { get; internal set; }
    /// <summary>
    /// Serializer calls inside the window (RunStart version 1; 1 before; a BenchmarkDotNet iteration's total operations,
    /// which can pass int's range): every figure of the run covers all of them.
    /// </summary>
    public long Operations { get; internal set; } = 1;
    public GcCounts GcCount => new(Gen0, Gen1, Gen2);

    /// <summary>
    /// Sampled time outside GC: what reflection and Activator shares are shares of. GC pauses (EventPipe) or GC
    /// frames (ETW) are time the serializer's own code did not run, whatever made it collect.
    /// </summary>
    public double NonGcSampledMs => Tags.Values.Sum() - TagMs("GC");

    /// <summary>Sum of sampled time in tags whose path starts with the prefix (e.g. "Reflection").</summary>
    public double TagMs(string prefix) => Tags.Where(t => t.Key == prefix || t.Key.StartsWith(prefix + "\\", StringComparison.Ordinal)).Sum(t => t.Value);
}

/// <summary>CPU figures from one sampling source.</summary>
public sealed record SampledCpu(double CpuMs, int Samples, IReadOnlyDictionary<string, double> Tags)
{
    public double TagMs(string prefix) => Tags.Where(t => t.Key == prefix || t.Key.StartsWith(prefix + "\\", StringComparison.Ordinal)).Sum(t => t.Value);
    public double NonGcMs => Tags.Values.Sum() - TagMs("GC");
}
