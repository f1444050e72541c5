namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// One trace's analysis while the stages fill it in (the pass, the CPU charge, the kernel session, the harness
/// stages); <see cref="Freeze"/> makes the immutable <see cref="TraceAnalysis"/> the reports, findings and diff read.
/// </summary>
internal sealed class AnalysisDraft
{
    /// <summary>Replaced, never changed in place: a stage that learns something about the trace writes <c>Trace = Trace with { ... }</c>.</summary>
    public required TraceInfo Trace { get; set; }
    public List<RunDraft> RunList { get; } = [];
    public IReadOnlyList<RunDraft> Runs => RunList;
    public Dictionary<(string Serializer, string Operation, int Objects), IReadOnlyDictionary<string, HotMethod>> HotMethodTable { get; } = [];
    public Dictionary<(string Serializer, string Operation, int Objects), IReadOnlyDictionary<TagSite, double>> TagSiteTable { get; } = [];
    public List<string> WarningList { get; } = [];
    public IReadOnlyList<string> Warnings => WarningList;
    public List<ThreadProfile> ThreadList { get; } = [];
    public IReadOnlyList<ThreadProfile> Threads => ThreadList;
    public ProcessProfile Process { get; set; } = new();
    public EtwSerializerProfiler.Common.BenchmarkResults? InProcess { get; set; }
    /// <summary>The charged samples, still pointing at the drafts; null when <see cref="AnalyzerOptions.KeepChargedSamples"/> is off.</summary>
    public SampleLedger<RunDraft>? Samples { get; set; }
    /// <summary>What happened when; null unless <see cref="AnalyzerOptions.KeepMarks"/>.</summary>
    public TraceMarksDraft? Marks { get; set; }

    /// <summary>The analysis as the model shows it (findings come after, from the frozen runs).</summary>
    public TraceAnalysis Freeze()
    {
        var runs = new Dictionary<RunDraft, RunAnalysis>(RunList.Count, ReferenceEqualityComparer.Instance);
        foreach (var run in RunList) runs[run] = run.Freeze();
        return new TraceAnalysis
        {
            Trace = Trace,
            Runs = [.. RunList.Select(r => runs[r])],
            HotMethods = HotMethodTable,
            TagSites = TagSiteTable,
            Warnings = [.. WarningList],
            Threads = [.. ThreadList],
            Process = Process,
            InProcess = InProcess,
            Samples = Samples?.Select(run => runs.GetValueOrDefault(run)),
            Marks = Marks?.Freeze(),
        };
    }
}
