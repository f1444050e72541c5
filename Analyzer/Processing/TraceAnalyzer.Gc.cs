using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using EtwSerializerProfiler.Analyzer.Timeline;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>
    /// The runtime's suspensions, GCs and version, per process; then GC counts and pauses clipped to run windows (and
    /// taken out of sample gaps by the charge).
    /// </summary>
    private sealed partial class PassState
    {
        // Per process: an ETW trace holds the whole machine and names the benchmark's process only at its first
        // RunStart, so its runtime's suspensions and GCs before that are kept by process and the benchmark's chosen
        // after the pass. An EventPipe trace is one process.
        private readonly Dictionary<int, ProcessRuntime> _runtimes = [];

        private ProcessRuntime RuntimeOf(TraceEvent e) => RuntimeOf(etw ? e.ProcessID : 0);

        /// <summary>The benchmark process's runtime (after the pass: on ETW the process is known from its first RunStart).</summary>
        private ProcessRuntime Runtime => RuntimeOf(etw ? _processId : 0);

        private ProcessRuntime RuntimeOf(int processId)
        {
            if (!_runtimes.TryGetValue(processId, out var runtime)) _runtimes[processId] = runtime = new ProcessRuntime();
            return runtime;
        }

        /// <summary>Runtime suspensions (Timeline/RuntimeSuspensions: GC pauses, and the sampler's and tiering's own), the GCs, the version.</summary>
        private void SubscribeRuntime(TraceEventDispatcher source)
        {
            source.Clr.GCSuspendEEStart += e => RuntimeOf(e).Suspensions.SuspendStart(e.ThreadID, e.TimeStampRelativeMSec,
                forGc: e.Reason is GCSuspendEEReason.SuspendForGC or GCSuspendEEReason.SuspendForGCPrep);
            source.Clr.GCSuspendEEStop += e => RuntimeOf(e).Suspensions.Suspended(e.ThreadID, e.TimeStampRelativeMSec);
            source.Clr.GCStart += e =>
            {
                var runtime = RuntimeOf(e);
                runtime.Gcs.Start(e.TimeStampRelativeMSec, e.Count, e.Depth, runtime.Suspensions.AnyOpen);
                runtime.Suspensions.GcStarted(e.ThreadID);
            };
            source.Clr.GCRestartEEStart += e => RuntimeOf(e).Suspensions.RestartStart(e.ThreadID, e.TimeStampRelativeMSec);
            source.Clr.GCRestartEEStop += e => RuntimeOf(e).Suspensions.RestartStop(e.ThreadID, e.TimeStampRelativeMSec);
            source.Clr.RuntimeStart += e => RuntimeOf(e).Started(e);
            new ClrRundownTraceEventParser(source).RuntimeStart += e => RuntimeOf(e).Started(e);
        }

        private void AssignGcs()
        {
            var runs = analysis.Runs.OrderBy(r => r.StartMs).ToList();
            RunGcs.CountGenerations(runs, Runtime.Gcs.All);
            foreach (var (run, ms) in RunGcs.OverlapsByRun(GcPauseList, runs)) run.GcPauseMs += ms;
            foreach (var (run, ms) in RunGcs.OverlapsByRun(Runtime.Suspensions.Suspending, runs)) run.GcSuspendMs += ms;
            foreach (var (run, ms) in RunGcs.OverlapsByRun(Runtime.Suspensions.Restarting, runs)) run.GcRestartMs += ms;
            // One entry per GC each, read only here: not kept through the charge.
            Runtime.Gcs.Release();
            Runtime.Suspensions.ReleaseParts();
        }
    }

    /// <summary>One process's runtime as the pass saw it: its suspensions, its GCs and its version.</summary>
    private sealed class ProcessRuntime
    {
        private System.Version? _version;

        public RuntimeSuspensions Suspensions { get; } = new();
        public GcCollections Gcs { get; } = new();

        /// <summary>As TraceEvent's runtime analysis spells it ("V 10.0.1226.42308").</summary>
        public string? Version => _version is { } v ? $"V {v.Major}.{v.Minor}.{v.Build}.{v.Revision}" : null;

        /// <summary>The runtime's start or rundown event; a later one replaces the version only if it carries a QFE number.</summary>
        public void Started(RuntimeInformationTraceData e)
        {
            if (_version is not null && e.VMQfeNumber == 0) return;
            _version = new System.Version(e.VMMajorVersion, e.VMMinorVersion, e.VMBuildNumber, e.VMQfeNumber);
        }
    }
}
