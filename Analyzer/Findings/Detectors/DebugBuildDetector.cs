using EtwSerializerProfiler.Analyzer.Model;
using static EtwSerializerProfiler.Analyzer.Findings.FindingFormat;

namespace EtwSerializerProfiler.Analyzer.Findings.Detectors;

/// <summary>
/// The benchmark ran as a Debug build (results.json "configuration"): the JIT optimizer was off, so every number
/// in the trace is inflated and serializers may rank differently (seed 000's tester warns about the same).
/// </summary>
internal sealed class DebugBuildDetector : IFindingDetector
{
    public string Kind => FindingKinds.DebugBuild;

    public IEnumerable<Finding> Detect(FindingContext context)
    {
        if (context.Results is not { } results || !results.Configuration.Equals("Debug", StringComparison.OrdinalIgnoreCase)) yield break;
        yield return new Finding
        {
            Kind = Kind,
            Severity = FindingSeverity.Critical,
            Runs = [.. context.Analysis.Runs.Select(r => r.Key)],
            Message = Invariant($"the benchmark was a Debug build (results.json configuration '{results.Configuration}'): the JIT optimizer was off and all {context.Analysis.Runs.Count} runs are slower than users see; record a Release build (-c Release)"),
            Evidence = [new("debugBuild", 1), new("runs", context.Analysis.Runs.Count)],
        };
    }
}
