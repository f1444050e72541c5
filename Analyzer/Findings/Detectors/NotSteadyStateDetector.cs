using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using static EtwSerializerProfiler.Analyzer.Findings.FindingFormat;

namespace EtwSerializerProfiler.Analyzer.Findings.Detectors;

/// <summary>
/// Measured runs that still execute code the runtime has not finished optimizing: tier-0, the instrumented tier
/// (dynamic PGO counting before tier 1) or minimal optimization. Their durations describe the warm-up, not the
/// serializer at steady state (issue 13: Newtonsoft.Json read 9x slower than its steady state after one warm-up
/// run). The tiers come from the trace's own method load events, per sample's innermost managed frame. First calls
/// are left out: being unoptimized is what a first call measures.
/// </summary>
internal sealed class NotSteadyStateDetector : IFindingDetector
{
    public string Kind => FindingKinds.NotSteadyState;

    public IEnumerable<Finding> Detect(FindingContext context)
    {
        var t = context.Thresholds;
        foreach (var g in context.Cases.Where(g => g.Operation != FirstCallDetector.Operation))
        {
            var managedMs = g.Sum(r => r.TierMs.Values.Sum());
            if (managedMs < t.MinSampledMs || CodeTiers.UnoptimizedShare(g.Evidence) is not { } share) continue;
            var tier0 = g.Sum(r => r.TierMs.GetValueOrDefault(CodeTier.Tier0)) / managedMs;
            var instrumented = g.Sum(r => r.TierMs.GetValueOrDefault(CodeTier.Instrumented)) / managedMs;
            var warmup = context.Results?.Warmups?.FirstOrDefault(w => w.Serializer == g.Serializer && w.Operation == g.Operation && w.Objects == g.Objects);
            var warmups = context.Results?.Runs.Count(r => r.Warmup && r.Serializer == g.Serializer && r.Operation == g.Operation && r.Objects == g.Objects);
            KeyValuePair<string, double>[] evidence =
            [
                new("unoptimizedShare", share),
                new("tier0Share", tier0),
                new("instrumentedShare", instrumented),
                new("managedCpuMsPerRun", managedMs / g.Evidence.Count),
            ];
            if (share >= t.MaxUnoptimizedShare)
            {
                var said = warmup is null ? "" : warmup.SteadyState ? "; the benchmark's warm-up took it for steady" : Invariant($"; the benchmark's warm-up said so too ({warmup.Reason})");
                yield return g.FindingOf(Kind, FindingSeverity.Warning,
                    Invariant($"not at steady state: {Pct(share)} of the measured runs' managed CPU is in code the runtime has not finished optimizing ({Pct(tier0)} tier-0, {Pct(instrumented)} instrumented){(warmups is { } w ? $" after {w} warm-up run(s)" : "")}{said}: the durations describe the warm-up, not the serializer; warm up longer (the benchmark's --warmup, --warmup-min-calls, --warmup-max-ms)")) with
                { Evidence = evidence };
            }
            else if (warmup is { SteadyState: false, Policy: "auto" })
            {
                // The benchmark judges by the JIT's count, process-wide: any compile anywhere holds it open. Measured
                // (issue 22, N=1,000 and 10,000): the compiles during measured runs were tier-1 promotions on the tiering
                // thread (harness getters, YamlDotNet's scanner, DataContract's readers), no IL stubs or dynamic methods.
                // The trace judges this case's own code, by the tier of the frame each of its samples ran in.
                yield return g.FindingOf(FindingKinds.SteadyByTrace, FindingSeverity.Info,
                    Invariant($"steady by the trace: {Pct(1 - share)} of the measured runs' managed CPU ran optimized code, although the benchmark's warm-up ended not steady ({warmup.Reason}); that count is process-wide, every compile counts (the harness, helpers, other threads, stubs, dynamic methods, and late tier-1 promotions of code this case rarely runs), while the measured time ran in optimized code: the durations are steady-state ones")) with
                { Evidence = [.. evidence, new("measuredCompiledMethods", warmup.MeasuredCompiledMethods ?? 0)] };
            }
        }
    }
}
