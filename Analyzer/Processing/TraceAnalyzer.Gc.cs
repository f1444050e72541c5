using EtwSerializerProfiler.Analyzer.Model;
using Microsoft.Diagnostics.Tracing.Analysis;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>GC pauses: suspensions that ran a GC, clipped to run windows and taken out of sample gaps.</summary>
    private sealed partial class PassState
    {
        private double OverlapWithPauses(double from, double to)
        {
            var total = 0.0;
            for (var i = _pauses.Count - 1; i >= 0 && _pauses[i].EndMs > from - 1000; i--)
                total += _pauses[i].Overlap(from, to);
            return total;
        }

        private void AssignGcs(TraceLogEventSource source)
        {
            var runs = analysis.Runs.OrderBy(r => r.StartMs).ToList();
            var starts = runs.Select(r => r.StartMs).ToArray();
            foreach (var process in source.Processes())
            {
                if (etw && process.ProcessID != _processId) continue;
                var gcs = process.LoadedDotNetRuntime()?.GC?.GCs;
                if (gcs is null) continue;
                foreach (var gc in gcs)
                {
                    var i = Array.BinarySearch(starts, gc.StartRelativeMSec);
                    if (i < 0) i = ~i - 1;
                    if (i < 0 || gc.StartRelativeMSec > runs[i].EndMs) continue;
                    var run = runs[i];
                    switch (gc.Generation)
                    {
                        case 0: run.Gen0++; break;
                        case 1: run.Gen1++; break;
                        default: run.Gen2++; break;
                    }
                }
                // Safety net: a GC whose suspension events were lost still has TraceEvent's own pause figure.
                foreach (var gc in gcs.Where(g => g.PauseDurationMSec > 0))
                {
                    var pause = new Interval(gc.PauseStartRelativeMSec, gc.PauseStartRelativeMSec + gc.PauseDurationMSec);
                    if (!_pauses.Any(p => p.Overlap(pause.StartMs, pause.EndMs) > 0)) _pauses.Add(pause);
                }
            }
            // Pauses are clipped to each window, as GC.GetTotalPauseDuration deltas are: a background GC that
            // starts in one run may pause again in the next.
            foreach (var (run, ms) in OverlapsByRun(_pauses, runs)) run.GcPauseMs += ms;
            foreach (var (run, ms) in OverlapsByRun(_suspending, runs)) run.GcSuspendMs += ms;
            foreach (var (run, ms) in OverlapsByRun(_restarting, runs)) run.GcRestartMs += ms;
        }

        /// <summary>How much of each interval falls in each run; both sorted by time, so a sweep, not all against all.</summary>
        private static IEnumerable<(RunAnalysis Run, double Ms)> OverlapsByRun(List<Interval> intervals, List<RunAnalysis> runsByStart)
        {
            intervals.Sort((a, b) => a.StartMs.CompareTo(b.StartMs));
            var first = 0;
            foreach (var run in runsByStart)
            {
                while (first < intervals.Count && intervals[first].EndMs <= run.StartMs) first++;
                for (var i = first; i < intervals.Count && intervals[i].StartMs < run.EndMs; i++)
                    yield return (run, intervals[i].Overlap(run.StartMs, run.EndMs));
            }
        }
    }
}
