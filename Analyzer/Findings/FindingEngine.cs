using EtwSerializerProfiler.Analyzer.Findings.Detectors;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Findings;

/// <summary>Runs every detector over an analysis; findings come out most severe first, in detector order within a severity.</summary>
internal static class FindingEngine
{
    /// <summary>The order here is the order of the findings list: validity of the measurement first, then causes.</summary>
    public static IReadOnlyList<IFindingDetector> DefaultDetectors { get; } =
    [
        new DebugBuildDetector(),
        new DebuggerAttachedDetector(),
        new TracingCostDetector(),
        new CpuBiasDetector(),
        new NotSteadyStateDetector(),
        new ExceptionsDetector(),
        new ContentionDetector(),
        new SuperLinearScalingDetector(),
        new GcPauseDetector(),
        new OtherThreadsDetector(),
        new ReflectionDetector(),
        new FirstCallDetector(),
    ];

    /// <summary>Findings for an analyzed trace, reading results.json from the trace folder when there is one.</summary>
    public static IReadOnlyList<Finding> Detect(TraceAnalysis analysis, FindingThresholds? thresholds = null) =>
        Detect(new FindingContext(analysis, analysis.InProcess ?? LoadResults(analysis.Trace.ResultsFile), thresholds ?? FindingThresholds.Default));

    /// <remarks>The most severe first, each severity in the detectors' order (a stable sort, written out: LINQ's sort by an enum key is JIT code in the ReadyToRun build).</remarks>
    public static IReadOnlyList<Finding> Detect(FindingContext context, IEnumerable<IFindingDetector>? detectors = null)
    {
        List<Finding> found = [.. (detectors ?? DefaultDetectors).SelectMany(d => d.Detect(context))];
        var ordered = new List<Finding>(found.Count);
        var severities = Enum.GetValues<FindingSeverity>(); // by value, the least severe first
        for (var s = severities.Length - 1; s >= 0; s--)
            foreach (var finding in found)
                if (finding.Severity == severities[s]) ordered.Add(finding);
        return ordered;
    }

    private static BenchmarkResults? LoadResults(string? path)
    {
        if (path is null || !File.Exists(path)) return null;
        // Unreadable results were already reported as a trace warning when the in-process columns were joined.
        try { return BenchmarkResults.Load(path); }
        catch (Exception ex) when (ex is System.Text.Json.JsonException or InvalidDataException or IOException) { return null; }
    }
}
