using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using EtwSerializerProfiler.Analyzer.Timeline;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>GC pauses: suspensions that ran a GC, clipped to run windows and taken out of sample gaps.</summary>
    private sealed partial class PassState
    {
        // Per process: an ETW trace holds the whole machine and names the benchmark's process only at its first
        // RunStart, so its runtime's suspensions and GCs before that are kept by process and the benchmark's chosen
        // after the pass. An EventPipe trace is one process.
        private readonly Dictionary<int, ProcessRuntime> _runtimes = [];

        private ProcessRuntime RuntimeOf(TraceEvent e)
        {
            var id = etw ? e.ProcessID : 0;
            if (!_runtimes.TryGetValue(id, out var runtime)) _runtimes[id] = runtime = new ProcessRuntime();
            return runtime;
        }

        /// <summary>The benchmark process's runtime (after the pass: on ETW the process is known from its first RunStart).</summary>
        private ProcessRuntime Runtime
        {
            get
            {
                var id = etw ? _processId : 0;
                if (!_runtimes.TryGetValue(id, out var runtime)) _runtimes[id] = runtime = new ProcessRuntime();
                return runtime;
            }
        }

        private void AssignGcs()
        {
            var runs = analysis.Runs.OrderBy(r => r.StartMs).ToList();
            RunGcs.CountGenerations(runs, Runtime.Gcs.All);
            foreach (var (run, ms) in RunGcs.OverlapsByRun(GcPauseList, runs)) run.GcPauseMs += ms;
            foreach (var (run, ms) in RunGcs.OverlapsByRun(Runtime.Suspensions.Suspending, runs)) run.GcSuspendMs += ms;
            foreach (var (run, ms) in RunGcs.OverlapsByRun(Runtime.Suspensions.Restarting, runs)) run.GcRestartMs += ms;
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
