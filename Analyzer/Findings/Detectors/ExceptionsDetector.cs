using EtwSerializerProfiler.Analyzer.Model;
using static EtwSerializerProfiler.Analyzer.Findings.FindingFormat;

namespace EtwSerializerProfiler.Analyzer.Findings.Detectors;

/// <summary>
/// Exceptions thrown inside a serializer's measured runs. A run that completed had caught them all, so they are a
/// first-chance cost on the serializer's own path (seed 003: DataContractSerializer throwing FormatException per
/// base64 chunk). Reports the exception type and throwing frame that account for most of them.
/// </summary>
internal sealed class ExceptionsDetector : IFindingDetector
{
    public string Kind => FindingKinds.Exceptions;

    public IEnumerable<Finding> Detect(FindingContext context)
    {
        var t = context.Thresholds;
        foreach (var g in context.Cases)
        {
            var perRun = g.Mean(r => r.Counters.Exceptions);
            if (perRun < t.MinExceptionsPerRun) continue;
            var pairs = g.Evidence.SelectMany(r => r.Counters.ExceptionsBySite)
                .GroupBy(p => p.Key)
                .Select(p => (Site: p.Key, Count: p.Sum(x => x.Value)))
                .OrderByDescending(p => p.Count).ThenBy(p => p.Site.Type, StringComparer.Ordinal).ThenBy(p => p.Site.Frame, StringComparer.Ordinal)
                .ToList();
            var total = g.Sum(r => r.Counters.Exceptions);
            var (type, frame) = pairs.Count == 0 ? ("exceptions", "?") : (pairs[0].Site.Type, pairs[0].Site.Frame);
            var topShare = pairs.Count == 0 || total == 0 ? 0 : pairs[0].Count / total;
            var warning = perRun >= t.WarningExceptionsPerRun;
            // A run repeats the call Operations times on each calling thread (Calls): per object means per call's object.
            var perObject = g.Mean(r => r.Counters.Exceptions / (double)r.Calls) / Math.Max(1, g.Objects);
            var others = pairs.Count > 1 ? $" (+{pairs.Count - 1} other type/frame pair{(pairs.Count > 2 ? "s" : "")})" : "";
            yield return g.FindingOf(Kind, warning ? FindingSeverity.Warning : FindingSeverity.Info,
                warning
                    ? Invariant($"{perRun:N0} exceptions per run ({perObject:0.##} per object), {Pct(topShare)} of them {type} thrown at {frame}{others} and caught inside the serializer: an exception-driven slow path")
                    : Invariant($"{perRun:0.#} exception(s) per run: {type} thrown at {frame}{others}, caught inside the serializer")) with
            {
                Frame = frame,
                Evidence =
                [
                    new("exceptionsPerRun", perRun),
                    new("exceptionsPerObject", perObject),
                    new("exceptions", total),
                    new("topPairShare", topShare),
                    new("durationMs", g.Mean(r => r.DurationMs)),
                ],
            };
        }
    }
}
