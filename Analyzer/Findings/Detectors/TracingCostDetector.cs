using EtwSerializerProfiler.Analyzer.Model;
using static EtwSerializerProfiler.Analyzer.Findings.FindingFormat;

namespace EtwSerializerProfiler.Analyzer.Findings.Detectors;

/// <summary>
/// Tracing slowed a case by more than 5% (esp record --tracing-cost, the benchmark's thread CPU clock: see
/// <see cref="TracingCostEstimate.Headline"/>): its times and shares are inflated by the tracer, so they say less about
/// the untraced code.
/// </summary>
internal sealed class TracingCostDetector : IFindingDetector
{
    public const double ThresholdPercent = 5;

    public string Kind => FindingKinds.TracingCost;

    public IEnumerable<Finding> Detect(FindingContext context)
    {
        // A sham (--tracing-cost-sham, a test switch) left tracing off: whatever it reads, tracing did not cause it.
        if (context.Analysis.InProcess?.TracingCostSham == true) yield break;
        foreach (var ((serializer, operation, objects), both) in context.Analysis.TracingCost)
        {
            var cost = both.Headline;
            if (cost.LowPercent <= ThresholdPercent) continue;
            // results.json measures every case; the analysis may hold some (--serializers, --n): none of the others.
            RunKey[] runs = [.. context.Analysis.Runs.Where(r => r.IsMeasured && r.Key.Serializer == serializer && r.Key.Operation == operation && r.Key.Objects == objects).Select(r => r.Key)];
            if (runs.Length == 0) continue;
            yield return new Finding
            {
                Kind = Kind,
                Severity = cost.Percent > 20 ? FindingSeverity.Warning : FindingSeverity.Info,
                Serializer = serializer,
                Operation = operation,
                Objects = objects,
                Runs = runs,
                Message = Invariant($"tracing slowed {serializer} {operation} N={objects:N0} by {cost.Describe()} (the benchmark's {(both.Cpu is null ? "Stopwatch" : "thread CPU clock")} at the runs' fast end, {cost.TracedRuns} traced against {cost.UntracedRuns} untraced runs in the same process): its time and shares are inflated by the tracer; compare untraced times with the benchmark alone, or record with a lighter --profile"),
                Evidence = [new("tracingCostPercent", cost.Percent), new("ciLowPercent", cost.LowPercent), new("ciHighPercent", cost.HighPercent)],
            };
        }
    }
}
