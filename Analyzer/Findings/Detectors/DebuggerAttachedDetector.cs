using EtwSerializerProfiler.Analyzer.Model;
using static EtwSerializerProfiler.Analyzer.Findings.FindingFormat;

namespace EtwSerializerProfiler.Analyzer.Findings.Detectors;

/// <summary>A debugger was attached to the benchmark (results.json "debuggerAttached"): it slows JIT, exceptions and startup.</summary>
internal sealed class DebuggerAttachedDetector : IFindingDetector
{
    public string Kind => FindingKinds.DebuggerAttached;

    public IEnumerable<Finding> Detect(FindingContext context)
    {
        if (context.Results is not { DebuggerAttached: true }) yield break;
        yield return new Finding
        {
            Kind = Kind,
            Severity = FindingSeverity.Critical,
            Runs = [.. context.Analysis.Runs.Select(r => r.Key)],
            Message = Invariant($"a debugger was attached to the benchmark: exceptions, JIT and first calls are much slower under it, so none of the {context.Analysis.Runs.Count} runs is representative; run without a debugger"),
            Evidence = [new("debuggerAttached", 1), new("runs", context.Analysis.Runs.Count)],
        };
    }
}
