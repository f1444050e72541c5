using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Processing.Collectors;

/// <summary>
/// GCs per run, once the pass is over (Collectors/GcCollections has them all then): a GC is the run's whose
/// window holds its start, edges included; pause time is clipped to each window, as GC.GetTotalPauseDuration deltas
/// are (a background GC that starts in one run may pause again in the next).
/// </summary>
internal static class RunGcs
{
    /// <param name="runsByStart">The runs in order of their start.</param>
    public static void CountGenerations(IReadOnlyList<RunDraft> runsByStart, IEnumerable<(double StartMs, int Generation)> gcs)
    {
        var starts = runsByStart.Select(r => r.StartMs).ToArray();
        foreach (var (startMs, generation) in gcs)
        {
            var i = Array.BinarySearch(starts, startMs);
            if (i < 0) i = ~i - 1;
            if (i < 0 || startMs > runsByStart[i].EndMs) continue;
            var run = runsByStart[i];
            switch (generation)
            {
                case 0: run.Gen0++; break;
                case 1: run.Gen1++; break;
                default: run.Gen2++; break;
            }
        }
    }

    /// <summary>How much of each interval falls in each run; both sorted by time (the intervals here), so a sweep, not all against all.</summary>
    public static IEnumerable<(RunDraft Run, double Ms)> OverlapsByRun(IReadOnlyList<Interval> pass, IReadOnlyList<RunDraft> runsByStart)
    {
        var intervals = SortedIntervals.ByStart(pass);
        var first = 0;
        foreach (var run in runsByStart)
        {
            while (first < intervals.Count && intervals[first].EndMs <= run.StartMs) first++;
            for (var i = first; i < intervals.Count && intervals[i].StartMs < run.EndMs; i++)
                yield return (run, intervals[i].Overlap(run.StartMs, run.EndMs));
        }
    }
}
