using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;
using static EtwSerializerProfiler.Analyzer.Findings.FindingFormat;

namespace EtwSerializerProfiler.Analyzer.Findings.Detectors;

/// <summary>
/// Time threads spent waiting for a lock inside a serializer's runs (Contention events), summed over threads and
/// compared with the run's wall-clock time. Names the frame that wanted the lock (seed 004: DataContractSerializer's
/// type caches under concurrent requests). Waits in the harness's own code (<see cref="HarnessCode"/>: the
/// benchmark's worker crew, the run markers) are left out: they are the measurement's, not the serializer's.
/// </summary>
internal sealed class ContentionDetector : IFindingDetector
{
    public string Kind => FindingKinds.Contention;

    public IEnumerable<Finding> Detect(FindingContext context)
    {
        var t = context.Thresholds;
        foreach (var g in context.Cases)
        {
            var perRun = g.Mean(Own);
            var duration = g.Sum(r => r.DurationMs);
            var share = duration <= 0 ? 0 : g.Sum(Own) / duration;
            if (perRun < t.MinContentionMs || share < t.MinContentionShare) continue;
            var top = g.Evidence.SelectMany(r => r.Counters.ContentionMsBySite)
                .Where(p => !HarnessCode.IsHarnessMethod(p.Key.Method))
                .GroupBy(p => p.Key.Name, StringComparer.Ordinal)
                .Select(p => (Frame: p.Key, Ms: p.Sum(x => x.Value)))
                .OrderByDescending(p => p.Ms).ThenBy(p => p.Frame, StringComparer.Ordinal)
                .FirstOrDefault();
            var frame = top.Frame ?? "?";
            var frameShare = top.Frame is null ? 0 : top.Ms / g.Sum(Own);
            var contentions = g.Mean(r => r.Counters.Contentions);
            yield return g.FindingOf(Kind, FindingSeverity.Warning,
                Invariant($"threads waited {perRun:F2} ms per run for locks ({Pct(share)} of the {g.Mean(r => r.DurationMs):F2} ms run on {g.Threads} thread(s), {contentions:0.#} contended acquisitions), {Pct(frameShare)} of it in {frame}: a lock shared by concurrent calls")) with
            {
                Frame = frame,
                Evidence =
                [
                    new("contentionMsPerRun", perRun),
                    new("contentionShare", share),
                    new("contentionsPerRun", contentions),
                    new("threads", g.Threads),
                    new("topFrameShare", frameShare),
                    new("durationMs", g.Mean(r => r.DurationMs)),
                ],
            };
        }
    }

    /// <summary>A run's lock waits outside the harness's own code.</summary>
    private static double Own(Model.RunAnalysis run) =>
        run.Counters.ContentionMs - run.Counters.ContentionMsBySite.Where(p => HarnessCode.IsHarnessMethod(p.Key.Method)).Sum(p => p.Value);
}
