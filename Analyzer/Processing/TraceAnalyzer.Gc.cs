using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>GC pauses: suspensions that ran a GC, clipped to run windows and taken out of sample gaps.</summary>
    private sealed partial class PassState
    {
        private void AssignGcs()
        {
            var runs = analysis.Runs.OrderBy(r => r.StartMs).ToList();
            RunGcs.CountGenerations(runs, _gcs.All);
            foreach (var (run, ms) in RunGcs.OverlapsByRun(GcPauseList, runs)) run.GcPauseMs += ms;
            foreach (var (run, ms) in RunGcs.OverlapsByRun(_suspensions.Suspending, runs)) run.GcSuspendMs += ms;
            foreach (var (run, ms) in RunGcs.OverlapsByRun(_suspensions.Restarting, runs)) run.GcRestartMs += ms;
        }
    }
}
