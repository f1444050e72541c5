using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;
using static EtwSerializerProfiler.Analyzer.Findings.FindingFormat;

namespace EtwSerializerProfiler.Analyzer.Findings.Detectors;

/// <summary>
/// Time per object that grows with N (seed 000: BinaryFormatter's fixed 4096-bucket object table made reads of
/// 1M objects take 80 s instead of ~2). Fits log(time) over log(N) across the object counts of one serializer and
/// operation. With a kernel session, time is the run's on-CPU time without GC work, page faults and memory
/// clearing: the serializer's own work, immune to preemption and to the heap's state, which decides whether a run
/// pays for a GC or for fresh pages (at 20,000 objects either is several ms; it decided the slope of hand-written
/// code: 0.8-1.6 measured). Otherwise the worker's CPU time from results.json when the run was single-threaded (GCs included),
/// else the run's duration minus its GC pauses. The cheapest measured run of each N is used (see <see cref="PointMs"/>).
/// </summary>
internal sealed class SuperLinearScalingDetector : IFindingDetector
{
    public string Kind => FindingKinds.SuperLinear;

    /// <summary>
    /// Samples of the serializer's own work (the run's samples times the share of its CPU outside the heap's state)
    /// below which the on-CPU figure is not a measurement: one or two samples' worth is the sampler's resolution.
    /// </summary>
    public const double MinOwnSamples = 2;

    /// <summary>
    /// The time one N is charged with, in ms per call: its cheapest run. A short run whose samples nearly all fell in
    /// GC or page faults leaves nothing of its own to fit: seen with Google.Protobuf at N=20,000 (nothing left, a
    /// false N^4.4; a sliver of a sample left, N^4.56) and with ObjectGraph at N=20,000, whose own work is about a
    /// sample a run: the thread's CPU, GC included, stood in and flattened its slope to 1.57. So when no run of the N
    /// has two samples of its own, the N's runs are pooled; when together they have fewer, the N is charged two
    /// samples' worth, an upper bound (so the slope read is a floor), or the thread's CPU if that is lower.
    /// </summary>
    public static double PointMs(IReadOnlyList<RunAnalysis> runs, bool onCpu)
    {
        var best = double.MaxValue;
        var (ms, samples, cpuMs, allSamples, ops) = (0.0, 0.0, 0.0, 0L, 0L);
        foreach (var run in onCpu ? runs : [])
        {
            if (Own(run) is not { } own) continue;
            if (own.Samples >= MinOwnSamples) best = Math.Min(best, PerCall(own.Ms, run.Operations));
            (ms, samples, ops) = (ms + own.Ms, samples + own.Samples, ops + run.Operations);
            (cpuMs, allSamples) = (cpuMs + run.CpuMs, allSamples + run.Samples);
        }
        if (best < double.MaxValue) return best;
        if (samples >= MinOwnSamples) return PerCall(ms, ops);
        if (allSamples > 0) best = PerCall(MinOwnSamples * cpuMs / allSamples, ops);
        foreach (var run in runs) best = Math.Min(best, FallbackMs(run));
        return best;
    }

    /// <summary>The run's on-CPU time outside the heap's state, and the samples it stands for; null without samples.</summary>
    private static (double Ms, double Samples)? Own(RunAnalysis run)
    {
        if (run.Samples <= 0 || run.CpuMs <= 0) return null;
        var own = Math.Max(0, run.CpuMs - HeapStateMs(run));
        return (own, own / run.CpuMs * run.Samples);
    }

    private static double FallbackMs(RunAnalysis run) => PerCall(
        run.InProcess is { CpuMs: > 0, Threads: <= 1 } p ? p.CpuMs : run.DurationMs - run.GcPauseMs, run.Operations);

    // Per call: runs of different N repeat the call a different number of times.
    private static double PerCall(double ms, long operations) => Math.Max(0.001, ms / Math.Max(1, operations));

    /// <summary>
    /// On-CPU time that follows the heap's state rather than the serializer's algorithm: GC work, first-touch page
    /// faults and the clearing of fresh memory (whether a run gets new pages depends on what the GC decommitted
    /// before it). A copy that grows with N (memmove) stays in: that is the serializer's doing.
    /// </summary>
    private static double HeapStateMs(RunAnalysis run) =>
        run.TagMs(StackTagMatcher.Gc) + run.TagMs("Kernel\\Page faults") + run.TagMs("Native runtime\\Memory clearing");

    public IEnumerable<Finding> Detect(FindingContext context)
    {
        var t = context.Thresholds;
        var onCpu = context.Analysis.Trace.OnCpu;
        foreach (var series in Series(context.Cases))
        {
            // Loops over lists, not LINQ over (N, ms, case) tuples: that ran as tier-0 JIT code in the ReadyToRun build.
            var points = new List<(double N, double Ms)>(series.Count);
            foreach (var g in series) points.Add((g.Objects, PointMs(g.Evidence, onCpu)));
            if (points.Count < t.MinScalingCounts) continue;
            var (first, last) = (points[0], points[^1]);
            if (first.N <= 0 || last.N / first.N < t.MinScalingSpread || last.Ms < t.MinScalingLargestMs) continue;
            var slope = LogLogFit.Slope(points);
            if (slope is not { } k || k < t.SuperLinearSlope) continue;
            var usFirst = first.Ms * 1000 / first.N;
            var usLast = last.Ms * 1000 / last.N;
            var evidence = new List<KeyValuePair<string, double>>
            {
                new("slope", k),
                new("minObjects", first.N),
                new("maxObjects", last.N),
                new("usPerObjectAtMin", usFirst),
                new("usPerObjectAtMax", usLast),
            };
            foreach (var (n, ms) in points) evidence.Add(new KeyValuePair<string, double>(Invariant($"msAtN{n:0}"), ms));
            var runs = new List<RunKey>();
            foreach (var g in series) runs.AddRange(g.Keys);
            yield return new Finding
            {
                Kind = Kind,
                Severity = FindingSeverity.Warning,
                Serializer = series[0].Serializer,
                Operation = series[0].Operation,
                Runs = runs,
                Message = Invariant($"time grows as N^{k:F2} over N={first.N:N0}..{last.N:N0} ({points.Count} sizes): {usFirst:F2} us per object at N={first.N:N0}, {usLast:F2} us at N={last.N:N0} ({usLast / usFirst:F1}x); something in it is worse than linear in the object count (e.g. an identity table that does not grow)"),
                Evidence = evidence,
            };
        }
    }

    /// <summary>
    /// The cases with runs by serializer and operation (first calls left out), series in first-seen order, each by N
    /// (one case per N).
    /// </summary>
    private static List<List<CaseSummary>> Series(IEnumerable<CaseSummary> cases)
    {
        var all = new List<CaseSummary>();
        foreach (var g in cases)
            if (g.Operation != FirstCallDetector.Operation) all.Add(g);
        var series = Collections.FirstSeenGroups.Of(all, g => string.Concat(g.Serializer, "\0", g.Operation));
        foreach (var one in series)
        {
            one.RemoveAll(static g => g.Evidence.Count == 0);
            one.Sort(static (a, b) => a.Objects.CompareTo(b.Objects));
        }
        return series;
    }
}
