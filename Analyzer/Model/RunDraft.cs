using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// One run while the analysis fills it in: the run windows open it, the collectors and the CPU charge add to it, the
/// kernel session and the harness stages refine it. <see cref="Freeze"/> turns it into the model's immutable
/// <see cref="RunAnalysis"/> once every stage is done; nothing outside the analysis sees a draft.
/// </summary>
/// <remarks>The figures are documented once, on <see cref="RunAnalysis"/>; <c>DraftFreezeTests</c> checks that the two list the same ones.</remarks>
internal sealed class RunDraft
{
    /// <summary>Settable only for runs found without their names (marker waits), named afterwards from their samples.</summary>
    public RunKey Key { get; set; }
    public string Data { get; set; } = "";
    public int MarkerThreadId { get; set; }
    public int WorkerThreadId { get; set; }
    /// <summary>Other threads that work for the run (RunThread events: the --threads crew); charged inside the window like the worker.</summary>
    public List<int> CrewThreadIds { get; } = [];
    /// <summary>The threads the run's CPU, off-CPU time and events are charged from: the worker and its crew.</summary>
    public bool IsRunThread(int threadId) => threadId == WorkerThreadId || (CrewThreadIds.Count > 0 && CrewThreadIds.Contains(threadId));
    public double StartMs { get; set; }
    public double EndMs { get; set; }
    public WindowSource Source { get; set; }
    public string? Stage { get; set; }
    public double? StopwatchMs { get; set; }
    /// <summary>RunStop version 2: the process's first-chance exceptions during the run, counted in-process; null before.</summary>
    public long? InProcessExceptions { get; set; }
    public double DurationMs => EndMs - StartMs;
    public double? MarkerWaitStartMs { get; set; }
    public double? MarkerWaitEndMs { get; set; }
    public double? MarkerWaitMs => MarkerWaitEndMs - MarkerWaitStartMs;
    /// <summary>The run's end was seen (RunWindows): the window no longer takes events. The draft's alone, not a figure.</summary>
    public bool Closed { get; set; }
    public bool PinnedToStopwatch { get; set; }
    public (double StartMs, double EndMs)? EventEdgesMs { get; set; }

    public double CpuMs { get; set; }
    /// <summary>False when no CPU source covers the run (no samples in the trace, or a kernel session cut before its end).</summary>
    public bool CpuKnown { get; set; } = true;
    public int Samples { get; set; }
    public Dictionary<string, double> TagTable { get; } = new(StringComparer.Ordinal);
    public int Gen0 { get; set; }
    public int Gen1 { get; set; }
    public int Gen2 { get; set; }
    public double GcPauseMs { get; set; }
    public double GcSuspendMs { get; set; }
    public double GcRestartMs { get; set; }
    public ActivityTally Counters { get; } = new();
    public RunResult? InProcess { get; set; }

    public SampledCpu? EventPipeCpu { get; set; }
    public IReadOnlyDictionary<OffCpuReason, double> OffCpuMs => OffCpuTable;
    public Dictionary<OffCpuReason, double> OffCpuTable { get; } = [];
    public Dictionary<CodeTier, double> TierTable { get; } = [];
    /// <summary>Whether <see cref="OtherThreadsTable"/> was measured (a kernel session with context switches).</summary>
    public bool OtherThreadsKnown { get; set; }
    public Dictionary<ThreadRole, double> OtherThreadsTable { get; } = [];
    public double NoTierMs { get; set; }
    public double UnnamedLeafMs { get; set; }
    public double UnexplainedLeafMs { get; set; }
    public double? SwitchWaitStartMs { get; set; }
    public double? SwitchWaitEndMs { get; set; }
    public int GcPollLeafSamples { get; set; }

    public bool IsWarmup { get; set; }
    public bool IsOutlier { get; set; }
    /// <summary>What <see cref="RunAnalysis.IsMeasured"/> will say: the runs the tables average.</summary>
    public bool IsMeasured => !IsWarmup && !IsOutlier;
    public double OverheadMs { get; set; }
    public bool? WarmupFromEvents { get; set; }
    public long Operations { get; set; } = 1;
    /// <summary>What <see cref="RunAnalysis.Calls"/> will say.</summary>
    public long Calls => Operations * Math.Max(1, CrewThreadIds.Count);

    /// <summary>The run as the model shows it; the draft's tables are handed over, not copied (the draft is done).</summary>
    public RunAnalysis Freeze() => new()
    {
        Key = Key,
        Data = Data,
        MarkerThreadId = MarkerThreadId,
        WorkerThreadId = WorkerThreadId,
        CrewThreadIds = CrewThreadIds,
        StartMs = StartMs,
        EndMs = EndMs,
        Source = Source,
        Stage = Stage,
        StopwatchMs = StopwatchMs,
        InProcessExceptions = InProcessExceptions,
        MarkerWaitStartMs = MarkerWaitStartMs,
        MarkerWaitEndMs = MarkerWaitEndMs,
        PinnedToStopwatch = PinnedToStopwatch,
        EventEdgesMs = EventEdgesMs,
        Cpu = new SampledCpu(CpuMs, Samples, TagTable),
        CpuKnown = CpuKnown,
        GcCount = new GcCounts(Gen0, Gen1, Gen2),
        GcPauseMs = GcPauseMs,
        GcSuspendMs = GcSuspendMs,
        GcRestartMs = GcRestartMs,
        InProcess = InProcess,
        EventPipeCpu = EventPipeCpu,
        NoTierMs = NoTierMs,
        UnnamedLeafMs = UnnamedLeafMs,
        UnexplainedLeafMs = UnexplainedLeafMs,
        SwitchWaitStartMs = SwitchWaitStartMs,
        SwitchWaitEndMs = SwitchWaitEndMs,
        GcPollLeafSamples = GcPollLeafSamples,
        IsWarmup = IsWarmup,
        IsOutlier = IsOutlier,
        OverheadMs = OverheadMs,
        WarmupFromEvents = WarmupFromEvents,
        Operations = Operations,
        OffCpuMs = OffCpuTable,
        TierMs = TierTable,
        OtherThreadsKnown = OtherThreadsKnown,
        OtherThreadsCpu = OtherThreadsTable,
        Counters = Counters.Freeze(),
    };
}
