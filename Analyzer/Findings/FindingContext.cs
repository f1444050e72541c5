using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Findings;

/// <summary>What detectors see: the analysis, the benchmark's own results.json (if the trace folder had one) and the thresholds.</summary>
internal sealed class FindingContext(TraceAnalysis analysis, BenchmarkResults? results, FindingThresholds thresholds)
{
    public TraceAnalysis Analysis { get; } = analysis;
    public BenchmarkResults? Results { get; } = results;
    public FindingThresholds Thresholds { get; } = thresholds;

    /// <summary>The cases with runs to describe (<see cref="CaseSummary.Evidence"/>), by serializer, operation and N.</summary>
    public IReadOnlyList<CaseSummary> Cases { get; } = [.. analysis.Cases.Where(c => c.Evidence.Count > 0)
        .OrderBy(c => c.Serializer, StringComparer.Ordinal).ThenBy(c => c.Operation, StringComparer.Ordinal).ThenBy(c => c.Objects)];
}
