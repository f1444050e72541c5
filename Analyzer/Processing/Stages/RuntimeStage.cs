using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Timeline;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// The runtime's suspensions, GCs and version, per process; then GC counts and pauses clipped to run windows (and
/// taken out of sample gaps by the charge).
/// </summary>
internal sealed class RuntimeStage : IPassStage
{
    // Per process: an ETW trace holds the whole machine and names the benchmark's process only at its first
    // RunStart, so its runtime's suspensions and GCs before that are kept by process and the benchmark's chosen
    // after the pass. An EventPipe trace is one process.
    private readonly Dictionary<int, ProcessRuntime> _runtimes = [];
    private IPass? _pass;

    private IPass Pass => _pass ?? throw new InvalidOperationException("the runtime stage is read before the pass");

    /// <summary>The benchmark process's runtime (after the pass: on ETW the process is known from its first RunStart).</summary>
    public ProcessRuntime Recorded => RuntimeOf(Pass.Scope.RecordedKey);

    /// <summary>The GC pauses: the suspensions that ran a GC.</summary>
    public Collections.ChunkedList<Interval> GcPauses => Recorded.Suspensions.GcPauses;

    private ProcessRuntime RuntimeOf(TraceEvent e) => RuntimeOf(Pass.Scope.RuntimeKey(e));

    private ProcessRuntime RuntimeOf(int processId)
    {
        if (!_runtimes.TryGetValue(processId, out var runtime)) _runtimes[processId] = runtime = new ProcessRuntime(Pass.Options.GcSettleEvery) { GcMarks = Pass.Marks is null ? null : [] };
        return runtime;
    }

    /// <summary>Runtime suspensions (Gc/RuntimeSuspensions: GC pauses, and the sampler's and tiering's own), the GCs, the version.</summary>
    public void Subscribe(TraceEventDispatcher source, IPass pass)
    {
        _pass = pass;
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
        if (runtime.RunGcs.ShouldSettle) runtime.RunGcs.Settle(Pass.Windows.SettledBeforeMs(e.TimeStampRelativeMSec), RunsOf(Pass.Scope.RuntimeKey(e)));
    }

    /// <summary>The runs a runtime's GCs can fall in: the benchmark process's (on ETW, known from its first RunStart), or none.</summary>
    private IReadOnlyList<RunDraft> RunsOf(int runtimeKey) => Pass.Scope.IsRecorded(runtimeKey) ? Pass.Analysis.Runs : [];

    /// <summary>
    /// Every window is final (the unended run left out): the GCs still waiting are counted, and the recorded process's
    /// pauses (the pass's own chunked lists, shared, not copied) and GCs go on the time line.
    /// </summary>
    public void Finish(IPass pass)
    {
        foreach (var (key, runtime) in _runtimes) runtime.RunGcs.Settle(double.PositiveInfinity, RunsOf(key));
        pass.Timeline.GcPauses = GcPauses;
        pass.Timeline.OtherSuspensions = Recorded.Suspensions.Other;
        foreach (var gc in Recorded.GcMarks ?? []) pass.Marks!.Gc(gc);
    }
}
