using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using Microsoft.Diagnostics.Tracing.Analysis;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>GC pauses: suspensions that ran a GC, clipped to run windows and taken out of sample gaps.</summary>
    private sealed partial class PassState
    {
        private void AssignGcs(TraceLogEventSource source)
        {
            var runs = analysis.Runs.OrderBy(r => r.StartMs).ToList();
            foreach (var process in source.Processes())
            {
                if (etw && process.ProcessID != _processId) continue;
                var gcs = process.LoadedDotNetRuntime()?.GC?.GCs;
                if (gcs is null) continue;
                RunGcs.CountGenerations(runs, gcs.Select(gc => (gc.StartRelativeMSec, gc.Generation)));
                // Safety net: a GC whose suspension events were lost still has TraceEvent's own pause figure.
                foreach (var gc in gcs.Where(g => g.PauseDurationMSec > 0))
                {
                    var pause = new Interval(gc.PauseStartRelativeMSec, gc.PauseStartRelativeMSec + gc.PauseDurationMSec);
                    if (!GcPauseList.Any(p => p.Overlap(pause.StartMs, pause.EndMs) > 0)) GcPauseList.Add(pause);
                }
            }
            foreach (var (run, ms) in RunGcs.OverlapsByRun(GcPauseList, runs)) run.GcPauseMs += ms;
            foreach (var (run, ms) in RunGcs.OverlapsByRun(_suspensions.Suspending, runs)) run.GcSuspendMs += ms;
            foreach (var (run, ms) in RunGcs.OverlapsByRun(_suspensions.Restarting, runs)) run.GcRestartMs += ms;
        }
    }
}
