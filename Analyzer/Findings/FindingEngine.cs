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

    public static IReadOnlyList<Finding> Detect(FindingContext context, IEnumerable<IFindingDetector>? detectors = null) =>
        [.. (detectors ?? DefaultDetectors).SelectMany(d => d.Detect(context)).OrderByDescending(f => f.Severity)];

    private static BenchmarkResults? LoadResults(string? path)
    {
        if (path is null || !File.Exists(path)) return null;
        // Unreadable results were already reported as a trace warning when the in-process columns were joined.
        try { return BenchmarkResults.Load(path); }
        catch (Exception ex) when (ex is System.Text.Json.JsonException or InvalidDataException or IOException) { return null; }
    }
}
