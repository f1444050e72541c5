namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>The result of analyzing one trace: runs, hot methods on request, and what the trace itself was like.</summary>
public sealed class TraceAnalysis
{
    public required TraceInfo Trace { get; init; }
    public List<RunAnalysis> Runs { get; } = [];
    /// <summary>Per (serializer, operation): method -> (exclusive ms, inclusive ms); filled only for --top.</summary>
    public Dictionary<(string Serializer, string Operation), Dictionary<string, (double Exclusive, double Inclusive)>> HotMethods { get; } = [];
    public List<string> Warnings { get; } = [];
    /// <summary>Every thread that did something, over the whole trace (busiest first): the analysis of a trace without runs.</summary>
    public List<ThreadProfile> Threads { get; } = [];
    public ProcessProfile Process { get; } = new();
    /// <summary>Diagnoses with evidence (Analyzer/Findings), most severe first; filled at the end of the analysis.</summary>
    public List<Finding> Findings { get; } = [];
    /// <summary>The benchmark's results.json next to the trace (configuration, unsupported serializers), if readable.</summary>
    public EtwSerializerProfiler.Common.BenchmarkResults? InProcess { get; set; }
    /// <summary>The charged samples with their frames, for the report's call trees and speedscope files (not serialized).</summary>
    public SampleLedger? Samples { get; internal set; }
}

public sealed class TraceInfo
{
    public required string Path { get; init; }
    public required string Format { get; init; }
    public long SizeBytes { get; init; }
    public double DurationMs { get; set; }
    public long Events { get; set; }
    public int EventsLost { get; set; }
    public string? ProcessName { get; set; }
    public int ProcessId { get; set; }
    public string? RuntimeVersion { get; set; }
    public string SamplingSource { get; set; } = "";
    public double? ObservedSampleIntervalMs { get; set; }
    /// <summary>The stack tags files read, joined with " + " (built-in first); null when there were none.</summary>
    public string? StackTagsFile { get; set; }
    /// <summary>Each stack tags file and how much of it matched (filled after the pass).</summary>
    public List<StackTagFileUse> StackTagFiles { get; } = [];
    public string? ResultsFile { get; set; }
    /// <summary>Where the runs came from: the benchmark's run events, the marker's waits alone, or another harness's events.</summary>
    public RunSource RunSource { get; set; }
    /// <summary>Runs found without names (marker waits, no run events): how they were named from stack tags; null otherwise.</summary>
    public InferredRunNames? InferredNames { get; set; }
    /// <summary>BenchmarkDotNet's overhead iterations (an empty method timed in place of the workload): counted, not runs.</summary>
    public int HarnessOverheadIterations { get; set; }
    /// <summary>Measured BenchmarkDotNet iterations its outlier rule drops (<see cref="RunAnalysis.IsOutlier"/>): shown, not averaged.</summary>
    public int HarnessOutliers { get; set; }
    public bool HasRundown { get; set; }
    public double UnresolvedSampleShare { get; set; }
    /// <summary>The trace has type load events (keyword TypeDiagnostic): native time in the type loader can be told apart.</summary>
    public bool TypeLoadEvents { get; set; }
    public bool Truncated { get; set; }
    /// <summary>Where the CPU columns come from: a kernel sampler (perf, ETW: on-CPU time) or EventPipe's (managed-code time); its wire name in every format.</summary>
    public CpuSourceKind CpuSource { get; set; } = CpuSourceKind.EventPipe;
    /// <summary>The CPU columns are on-CPU time (a kernel sampler), not EventPipe's sampled managed time.</summary>
    public bool OnCpu => CpuSource.IsOnCpu();
    /// <summary>The Linux kernel session, when the trace folder has one.</summary>
    public KernelSessionSummary? Kernel { get; set; }
    public double AnalysisSeconds { get; set; }
}

/// <summary>What the analyzer read from a trace folder's kernel session.</summary>
public sealed class KernelSessionSummary
{
    public required string File { get; init; }
    public double SamplePeriodMs { get; init; }
    public long Samples { get; set; }
    public long ProcessSamples { get; set; }
    public long ContextSwitches { get; set; }
    public long Wakings { get; set; }
    public long LostEvents { get; set; }
    public int UnreadableLines { get; set; }
    /// <summary>Share of the process's samples whose innermost frame has no name (stripped native code, stubs).</summary>
    public double UnnamedLeafShare { get; set; }
    /// <summary>
    /// <see cref="UnnamedLeafShare"/> by the module of the unnamed frame ("libcoreclr.so", "?" for code perf could not
    /// place), largest first: which debug files would name the most (docs/analyzer.md#native-symbols).
    /// </summary>
    public Dictionary<string, double> UnnamedLeafShareByModule { get; set; } = [];
    /// <summary>The modules named from --symbols debug files and the folders, when the frames were named again with them.</summary>
    public string? SymbolsFrom { get; set; }
    /// <summary>Share of managed frames in samples that the EventPipe trace's method map named.</summary>
    public int ManagedMethodsMapped { get; set; }
    /// <summary>Runs whose marker wait was found in the context switches, and the largest disagreement with RunBegin/RunEnd.</summary>
    public int RunsWithSwitchWindow { get; set; }
    public double? MaxSwitchWindowDisagreementMs { get; set; }
    public double? MedianSwitchWindowDisagreementMs { get; set; }
}
