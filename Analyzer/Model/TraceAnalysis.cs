namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// The result of analyzing one trace: runs, hot methods on request, and what the trace itself was like. Immutable:
/// the analysis fills an <see cref="AnalysisDraft"/> and freezes it once every stage is done.
/// </summary>
public sealed record TraceAnalysis
{
    internal TraceAnalysis() { }

    public required TraceInfo Trace { get; init; }
    /// <summary>The runs in trace order.</summary>
    public IReadOnlyList<RunAnalysis> Runs { get; init; } = [];

    /// <summary>The runs by case (serializer, operation, N), in the tables' order: made once per <see cref="Runs"/>.</summary>
    internal IReadOnlyList<CaseSummary> Cases
    {
        get
        {
            // A copy made with `with { Runs = ... }` carries this cache: it is kept only for the runs it was made of.
            var cached = _cases;
            if (cached is null || !ReferenceEquals(cached.Value.Runs, Runs)) _cases = cached = (Runs, CaseSummary.From(Runs));
            return cached.Value.Cases;
        }
    }

    private (IReadOnlyList<RunAnalysis> Runs, IReadOnlyList<CaseSummary> Cases)? _cases;
    /// <summary>
    /// Per (serializer, operation, N), as the per-operation tables: method name -> its row over the measured runs
    /// (exclusive and inclusive ms, unnamed code split by caller as the row's children); filled only for --top.
    /// </summary>
    public IReadOnlyDictionary<(string Serializer, string Operation, int Objects), IReadOnlyDictionary<string, HotMethod>> HotMethods { get; init; } =
        new Dictionary<(string, string, int), IReadOnlyDictionary<string, HotMethod>>();
    /// <summary>Per (serializer, operation, N): the measured runs' CPU by tag and by whose time it was (<see cref="TagSite"/>), summed over the runs; the verdicts' causes.</summary>
    public IReadOnlyDictionary<(string Serializer, string Operation, int Objects), IReadOnlyDictionary<TagSite, double>> TagSites { get; init; } =
        new Dictionary<(string, string, int), IReadOnlyDictionary<TagSite, double>>();
    public IReadOnlyList<string> Warnings { get; init; } = [];
    /// <summary>The figures every format writes per run and per case (<see cref="CaseColumn"/>): a report's choice, carried with what it reports, as BenchmarkDotNet's summary carries its config's columns.</summary>
    public IReadOnlyList<CaseColumn> Columns { get; init; } = CaseColumns.Default;
    /// <summary>Every thread that did something, over the whole trace (busiest first): the analysis of a trace without runs.</summary>
    public IReadOnlyList<ThreadProfile> Threads { get; init; } = [];
    public required ProcessProfile Process { get; init; }
    /// <summary>Diagnoses with evidence (Analyzer/Findings), most severe first; found on the frozen analysis, the last stage.</summary>
    public IReadOnlyList<Finding> Findings { get; init; } = [];
    /// <summary>The benchmark's results.json next to the trace (configuration, unsupported serializers), if readable.</summary>
    public EtwSerializerProfiler.Common.BenchmarkResults? InProcess { get; init; }
    /// <summary>What tracing cost each case (esp record --tracing-cost), estimated once from <see cref="InProcess"/>; empty without it.</summary>
    internal IReadOnlyDictionary<(string Serializer, string Operation, int Objects), TracingCostEstimate> TracingCost { get; init; } =
        new Dictionary<(string, string, int), TracingCostEstimate>();
    /// <summary>A BenchmarkDotNet trace with BenchmarkDotNet's report beside it: the traced mean against the summary's, read once.</summary>
    internal IReadOnlyList<BdnSummaryComparison> BenchmarkDotNetSummary { get; init; } = [];
    /// <summary>
    /// The charged samples with their frames, for the report's call trees and speedscope files (not serialized); null
    /// when <see cref="AnalyzerOptions.KeepChargedSamples"/> is off.
    /// </summary>
    public SampleLedger<RunAnalysis>? Samples { get; init; }
    /// <summary>Each GC, throw, JIT compilation, lock wait and off-CPU stretch, one by one (not serialized); null unless <see cref="AnalyzerOptions.KeepMarks"/>.</summary>
    public TraceMarks? Marks { get; init; }

    /// <summary>The analysis of one N only (esp analyze --n): its runs, hot methods, sites and findings; a warning when none has it.</summary>
    public TraceAnalysis OfObjects(int objects)
    {
        var runs = Runs.Where(r => r.Key.Objects == objects).ToList();
        return this with
        {
            Runs = runs,
            HotMethods = HotMethods.Where(h => h.Key.Objects == objects).ToDictionary(h => h.Key, h => h.Value),
            TagSites = TagSites.Where(h => h.Key.Objects == objects).ToDictionary(h => h.Key, h => h.Value),
            Samples = Samples?.Select(r => r.Key.Objects == objects ? r : null),
            Findings = [.. Findings.Where(f => f.Objects is null ? f.Serializer is null || runs.Any(r => r.Key.Serializer == f.Serializer) : f.Objects == objects)],
            Warnings = runs.Count > 0 ? Warnings : [.. Warnings, $"no runs with N={objects:N0} in this trace"],
        };
    }
}

/// <summary>What the trace itself was like. Immutable: the analysis stages replace it with a changed copy (<c>with</c>).</summary>
public sealed record TraceInfo
{
    public required string Path { get; init; }
    public required string Format { get; init; }
    /// <summary>
    /// Which reader ran: <see cref="RawReader"/> (one pass over the .nettrace's own events) or <see cref="TraceLogReader"/>
    /// (an ETW trace; --etlx; an EventPipe trace the raw pass would not read alike). Both give the same figures.
    /// </summary>
    public string Reader { get; init; } = TraceLogReader;
    public const string RawReader = "raw";
    public const string TraceLogReader = "etlx";
    /// <summary>The reader in words, for the text formats.</summary>
    public string ReaderInWords => Reader == RawReader ? "read in one raw pass" : "read through TraceLog (.etlx)";
    public long SizeBytes { get; init; }
    public double DurationMs { get; init; }
    public long Events { get; init; }
    public int EventsLost { get; init; }
    public string? ProcessName { get; init; }
    public int ProcessId { get; init; }
    public string? RuntimeVersion { get; init; }
    public string SamplingSource { get; init; } = "";
    public double? ObservedSampleIntervalMs { get; init; }
    /// <summary>The stack tags files read, joined with " + " (built-in first); null when there were none.</summary>
    public string? StackTagsFile { get; init; }
    /// <summary>Each stack tags file and how much of it matched (filled after the pass).</summary>
    public IReadOnlyList<StackTagFileUse> StackTagFiles { get; init; } = [];
    public string? ResultsFile { get; init; }
    /// <summary>Where the runs came from: the benchmark's run events, the marker's waits alone, or another harness's events.</summary>
    public RunSource RunSource { get; init; }
    /// <summary>Runs found without names (marker waits, no run events): how they were named from stack tags; null otherwise.</summary>
    public InferredRunNames? InferredNames { get; init; }
    /// <summary>BenchmarkDotNet's overhead iterations (an empty method timed in place of the workload): counted, not runs.</summary>
    public int HarnessOverheadIterations { get; init; }
    /// <summary>Measured BenchmarkDotNet iterations its outlier rule drops (<see cref="RunAnalysis.IsOutlier"/>): shown, not averaged.</summary>
    public int HarnessOutliers { get; init; }
    public bool HasRundown { get; init; }
    public double UnresolvedSampleShare { get; init; }
    /// <summary>The trace has type load events (keyword TypeDiagnostic): native time in the type loader can be told apart.</summary>
    public bool TypeLoadEvents { get; init; }
    public bool Truncated { get; init; }
    /// <summary>Where the CPU columns come from: a kernel sampler (perf, ETW: on-CPU time) or EventPipe's (managed-code time); its wire name in every format.</summary>
    public CpuSourceKind CpuSource { get; init; } = CpuSourceKind.EventPipe;
    /// <summary>The CPU columns are on-CPU time (a kernel sampler), not EventPipe's sampled managed time.</summary>
    public bool OnCpu => CpuSource.IsOnCpu();
    /// <summary>Why this source's CPU can disagree with the benchmark's thread CPU clock (the cpu-bias finding says it), as the source says.</summary>
    public string CpuBiasReason { get; init; } = "the CPU source disagrees with the thread's own clock (docs/analyzer.md#cpu-against-the-thread-clock)";
    /// <summary>The Linux kernel session, when the trace folder has one.</summary>
    public KernelSessionSummary? Kernel { get; init; }
    /// <summary>What the tracer's own processes took from the machine while it recorded (the manifest); null without it.</summary>
    public TracerCpu? TracerCpu { get; init; }
    /// <summary>
    /// CPU time the hypervisor took from the machine while the kernel session recorded (steal, the manifest), in ms:
    /// the CPU columns count it where it hit a run, the thread CPU clock does not. Null without a kernel session.
    /// </summary>
    public double? HostStealMs { get; init; }
    public double AnalysisSeconds { get; init; }
}

/// <summary>What the analyzer read from a trace folder's kernel session.</summary>
public sealed record KernelSessionSummary
{
    public required string File { get; init; }
    public double SamplePeriodMs { get; init; }
    public long Samples { get; init; }
    public long ProcessSamples { get; init; }
    public long ContextSwitches { get; init; }
    public long Wakings { get; init; }
    public long LostEvents { get; init; }
    public int UnreadableLines { get; init; }
    /// <summary>Share of the process's samples whose innermost frame has no name (stripped native code, stubs).</summary>
    public double UnnamedLeafShare { get; init; }
    /// <summary>
    /// <see cref="UnnamedLeafShare"/> by the module of the unnamed frame ("libcoreclr.so", "?" for code perf could not
    /// place), largest first: which debug files would name the most (docs/analyzer.md#native-symbols).
    /// </summary>
    public IReadOnlyDictionary<string, double> UnnamedLeafShareByModule { get; init; } = new Dictionary<string, double>();
    /// <summary>The modules named from --symbols debug files and the folders, when the frames were named again with them.</summary>
    public string? SymbolsFrom { get; init; }
    /// <summary>Share of managed frames in samples that the EventPipe trace's method map named.</summary>
    public int ManagedMethodsMapped { get; init; }
    /// <summary>Runs whose marker wait was found in the context switches, and the largest disagreement with RunBegin/RunEnd.</summary>
    public int RunsWithSwitchWindow { get; init; }
    public double? MaxSwitchWindowDisagreementMs { get; init; }
    public double? MedianSwitchWindowDisagreementMs { get; init; }
}

/// <summary>
/// The tracer's own CPU time while it recorded, from the OS's clocks of its processes (manifest recorderCpuSeconds and
/// kernel.perfCpuSeconds): on a machine with few cores, the time the recorded threads may have waited for a CPU.
/// </summary>
public sealed record TracerCpu(double RecordingSeconds, double RecorderSeconds, double? PerfSeconds)
{
    /// <summary>Both processes' CPU as a share of one core over the recording.</summary>
    public double CoreShare => RecordingSeconds <= 0 ? 0 : (RecorderSeconds + (PerfSeconds ?? 0)) / RecordingSeconds;

    /// <summary>"Tracer: the recorder used 0.41 s of CPU and perf 0.18 s in 5.2 s of recording: 11% of one core".</summary>
    public string Line() => FormattableString.Invariant(
        $"Tracer: the recorder used {RecorderSeconds:F2} s of CPU{(PerfSeconds is { } perf ? $" and perf {perf:F2} s" : "")} in {RecordingSeconds:F1} s of recording: {100 * CoreShare:F0}% of one core");
}
