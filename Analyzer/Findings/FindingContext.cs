using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Findings;

/// <summary>What detectors see: the analysis, the benchmark's own results.json (if the trace folder had one) and the thresholds.</summary>
internal sealed class FindingContext(TraceAnalysis analysis, BenchmarkResults? results, FindingThresholds thresholds)
{
    public TraceAnalysis Analysis { get; } = analysis;
    public BenchmarkResults? Results { get; } = results;
    public FindingThresholds Thresholds { get; } = thresholds;

    /// <summary>Measured runs grouped by serializer, operation and N (see <see cref="RunGroup"/>).</summary>
    public IReadOnlyList<RunGroup> Groups { get; } = RunGroup.From(analysis.Runs);
}
