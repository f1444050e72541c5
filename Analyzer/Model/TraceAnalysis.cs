namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>The result of analyzing one trace: runs, hot methods on request, and what the trace itself was like.</summary>
public sealed class TraceAnalysis
{
    public required TraceInfo Trace { get; init; }
    public List<RunAnalysis> Runs { get; } = [];
    /// <summary>Per (serializer, operation): method -> (exclusive ms, inclusive ms); filled only for --top.</summary>
    public Dictionary<(string Serializer, string Operation), Dictionary<string, (double Exclusive, double Inclusive)>> HotMethods { get; } = [];
    public List<string> Warnings { get; } = [];
    /// <summary>Diagnoses with evidence (Analyzer/Findings), most severe first; filled at the end of the analysis.</summary>
    public List<Findings.Finding> Findings { get; } = [];
    /// <summary>The benchmark's results.json next to the trace (configuration, unsupported serializers), if readable.</summary>
    public EtwSerializerProfiler.Common.BenchmarkResults? InProcess { get; set; }
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
    public bool HasRundown { get; set; }
    public double UnresolvedSampleShare { get; set; }
    public bool Truncated { get; set; }
    public double AnalysisSeconds { get; set; }
}
