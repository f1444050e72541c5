using EtwSerializerProfiler.Analyzer.Gc;
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

        private ProcessRuntime RuntimeOf(TraceEvent e) => RuntimeOf(_scope.RuntimeKey(e));

        /// <summary>The benchmark process's runtime (after the pass: on ETW the process is known from its first RunStart).</summary>
        private ProcessRuntime Runtime => RuntimeOf(_scope.RecordedKey);

        private ProcessRuntime RuntimeOf(int processId)
        {
            if (!_runtimes.TryGetValue(processId, out var runtime)) _runtimes[processId] = runtime = new ProcessRuntime(options.GcSettleEvery) { GcMarks = Marks is null ? null : [] };
            return runtime;
        }

        /// <summary>Runtime suspensions (Gc/RuntimeSuspensions: GC pauses, and the sampler's and tiering's own), the GCs, the version.</summary>
        private void SubscribeRuntime(TraceEventDispatcher source)
        {
            source.Clr.GCSuspendEEStart += e => RuntimeOf(e).Suspensions.SuspendStart(e.ThreadID, e.TimeStampRelativeMSec,
                forGc: e.Reason is GCSuspendEEReason.SuspendForGC or GCSuspendEEReason.SuspendForGCPrep);
            source.Clr.GCSuspendEEStop += e => RuntimeOf(e).Suspensions.Suspended(e.ThreadID, e.TimeStampRelativeMSec);
            source.Clr.GCStart += e =>
            {
                var runtime = RuntimeOf(e);
                if (runtime.Gcs.Start(e.Count, e.Depth, runtime.Suspensions.AnyOpen))
                {
                    runtime.RunGcs.Collection(e.TimeStampRelativeMSec, e.Depth);
                    runtime.GcMarks?.Add(new GcMark(e.TimeStampRelativeMSec, e.ThreadID, e.Count, e.Depth, e.Reason.ToString(), e.Type.ToString()));
                }
                runtime.Suspensions.GcStarted(e.ThreadID);
                SettleGcs(runtime, e);
            };
            source.Clr.GCRestartEEStart += e => RuntimeOf(e).Suspensions.RestartStart(e.ThreadID, e.TimeStampRelativeMSec);
            source.Clr.GCRestartEEStop += e =>
            {
                var runtime = RuntimeOf(e);
                if (runtime.Suspensions.RestartStop(e.ThreadID, e.TimeStampRelativeMSec) is { } pause) runtime.RunGcs.Paused(pause);
                SettleGcs(runtime, e);
            };
            source.Clr.RuntimeStart += e => RuntimeOf(e).Started(e);
            new ClrRundownTraceEventParser(source).RuntimeStart += e => RuntimeOf(e).Started(e);
        }

        /// <summary>Counts a runtime's waiting GCs into the runs once enough wait (the runs' windows settle as the pass goes).</summary>
        private void SettleGcs(ProcessRuntime runtime, TraceEvent e)
        {
            if (runtime.RunGcs.ShouldSettle) runtime.RunGcs.Settle(_windows.SettledBeforeMs(e.TimeStampRelativeMSec), RunsOf(_scope.RuntimeKey(e)));
        }

        /// <summary>The recorded process's GCs, one by one, for the time line (on ETW that process is known once the pass is over).</summary>
        private void MarkGcs()
        {
            foreach (var gc in Runtime.GcMarks ?? []) Marks!.Gc(gc);
        }

        /// <summary>The runs a runtime's GCs can fall in: the benchmark process's (on ETW, known from its first RunStart), or none.</summary>
        private IReadOnlyList<RunDraft> RunsOf(int runtimeKey) => _scope.IsRecorded(runtimeKey) ? analysis.Runs : [];

        /// <summary>The pass is over and every window final (the unended run left out): the GCs still waiting are counted.</summary>
        private void AssignGcs()
        {
            foreach (var (key, runtime) in _runtimes) runtime.RunGcs.Settle(double.PositiveInfinity, RunsOf(key));
        }
    }

    /// <summary>One process's runtime as the pass saw it: its suspensions, its GCs and its version.</summary>
    private sealed class ProcessRuntime(int gcSettleEvery)
    {
        private System.Version? _version;

        public RuntimeSuspensions Suspensions { get; } = new();
        public GcCollections Gcs { get; } = new();
        /// <summary>Its GCs on their way into the runs.</summary>
        public RunGcs RunGcs { get; } = new(gcSettleEvery);
        /// <summary>Each GC it counted, for the time line; null unless the analysis keeps marks.</summary>
        public List<GcMark>? GcMarks { get; init; }

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
