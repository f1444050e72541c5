namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>The result of analyzing one trace: runs, hot methods on request, and what the trace itself was like.</summary>
public sealed class TraceAnalysis
{
    public required TraceInfo Trace { get; init; }
    /// <summary>The runs in trace order. Read-only outside the analyzer, as every collection of the model: the pass fills the internal list.</summary>
    public IReadOnlyList<RunAnalysis> Runs => RunList;
    internal List<RunAnalysis> RunList { get; } = [];
    /// <summary>Per (serializer, operation): method -> (exclusive ms, inclusive ms); filled only for --top.</summary>
    public IReadOnlyDictionary<(string Serializer, string Operation), IReadOnlyDictionary<string, (double Exclusive, double Inclusive)>> HotMethods => HotMethodTable;
    internal Dictionary<(string Serializer, string Operation), IReadOnlyDictionary<string, (double Exclusive, double Inclusive)>> HotMethodTable { get; } = [];
    public IReadOnlyList<string> Warnings => WarningList;
    internal List<string> WarningList { get; } = [];
    /// <summary>Every thread that did something, over the whole trace (busiest first): the analysis of a trace without runs.</summary>
    public IReadOnlyList<ThreadProfile> Threads => ThreadList;
    internal List<ThreadProfile> ThreadList { get; } = [];
    public ProcessProfile Process { get; } = new();
    /// <summary>Diagnoses with evidence (Analyzer/Findings), most severe first; filled at the end of the analysis.</summary>
    public IReadOnlyList<Finding> Findings => FindingList;
    internal List<Finding> FindingList { get; } = [];
    /// <summary>The benchmark's results.json next to the trace (configuration, unsupported serializers), if readable.</summary>
    public EtwSerializerProfiler.Common.BenchmarkResults? InProcess { get; internal set; }
    /// <summary>
    /// The charged samples with their frames, for the report's call trees and speedscope files (not serialized); null
    /// when <see cref="AnalyzerOptions.KeepChargedSamples"/> is off.
    /// </summary>
    public SampleLedger? Samples { get; internal set; }
}

public sealed class TraceInfo
{
    public required string Path { get; init; }
    public required string Format { get; init; }
    public long SizeBytes { get; init; }
    public double DurationMs { get; internal set; }
    public long Events { get; internal set; }
    public int EventsLost { get; internal set; }
    public string? ProcessName { get; internal set; }
    public int ProcessId { get; internal set; }
    public string? RuntimeVersion { get; internal set; }
    public string SamplingSource { get; internal set; } = "";
    public double? ObservedSampleIntervalMs { get; internal set; }
    /// <summary>The stack tags files read, joined with " + " (built-in first); null when there were none.</summary>
    public string? StackTagsFile { get; internal set; }
    /// <summary>Each stack tags file and how much of it matched (filled after the pass).</summary>
    public IReadOnlyList<StackTagFileUse> StackTagFiles => StackTagFileList;
    internal List<StackTagFileUse> StackTagFileList { get; } = [];
    public string? ResultsFile { get; internal set; }
    /// <summary>Where the runs came from: the benchmark's run events, the marker's waits alone, or another harness's events.</summary>
    public RunSource RunSource { get; internal set; }
    /// <summary>Runs found without names (marker waits, no run events): how they were named from stack tags; null otherwise.</summary>
    public InferredRunNames? InferredNames { get; internal set; }
    /// <summary>BenchmarkDotNet's overhead iterations (an empty method timed in place of the workload): counted, not runs.</summary>
    public int HarnessOverheadIterations { get; internal set; }
    /// <summary>Measured BenchmarkDotNet iterations its outlier rule drops (<see cref="RunAnalysis.IsOutlier"/>): shown, not averaged.</summary>
    public int HarnessOutliers { get; internal set; }
    public bool HasRundown { get; internal set; }
    public double UnresolvedSampleShare { get; internal set; }
    /// <summary>The trace has type load events (keyword TypeDiagnostic): native time in the type loader can be told apart.</summary>
    public bool TypeLoadEvents { get; internal set; }
    public bool Truncated { get; internal set; }
    /// <summary>Where the CPU columns come from: a kernel sampler (perf, ETW: on-CPU time) or EventPipe's (managed-code time); its wire name in every format.</summary>
    public CpuSourceKind CpuSource { get; internal set; } = CpuSourceKind.EventPipe;
    /// <summary>The CPU columns are on-CPU time (a kernel sampler), not EventPipe's sampled managed time.</summary>
    public bool OnCpu => CpuSource.IsOnCpu();
    /// <summary>The Linux kernel session, when the trace folder has one.</summary>
    public KernelSessionSummary? Kernel { get; internal set; }
    public double AnalysisSeconds { get; internal set; }
}

/// <summary>What the analyzer read from a trace folder's kernel session.</summary>
public sealed class KernelSessionSummary
{
    public required string File { get; init; }
    public double SamplePeriodMs { get; init; }
    public long Samples { get; internal set; }
    public long ProcessSamples { get; internal set; }
    public long ContextSwitches { get; internal set; }
    public long Wakings { get; internal set; }
    public long LostEvents { get; internal set; }
    public int UnreadableLines { get; internal set; }
    /// <summary>Share of the process's samples whose innermost frame has no name (stripped native code, stubs).</summary>
    public double UnnamedLeafShare { get; internal set; }
    /// <summary>
    /// <see cref="UnnamedLeafShare"/> by the module of the unnamed frame ("libcoreclr.so", "?" for code perf could not
    /// place), largest first: which debug files would name the most (docs/analyzer.md#native-symbols).
    /// </summary>
    public IReadOnlyDictionary<string, double> UnnamedLeafShareByModule { get; internal set; } = new Dictionary<string, double>();
    /// <summary>The modules named from --symbols debug files and the folders, when the frames were named again with them.</summary>
    public string? SymbolsFrom { get; internal set; }
    /// <summary>Share of managed frames in samples that the EventPipe trace's method map named.</summary>
    public int ManagedMethodsMapped { get; internal set; }
    /// <summary>Runs whose marker wait was found in the context switches, and the largest disagreement with RunBegin/RunEnd.</summary>
    public int RunsWithSwitchWindow { get; internal set; }
    public double? MaxSwitchWindowDisagreementMs { get; internal set; }
    public double? MedianSwitchWindowDisagreementMs { get; internal set; }
}
