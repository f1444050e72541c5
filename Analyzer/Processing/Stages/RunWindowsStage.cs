using EtwSerializerProfiler.Analyzer.Harness;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Timeline;
using EtwSerializerProfiler.Common;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// Run windows: this stage reads the run events', the marker waits' and BenchmarkDotNet's payloads; <see cref="RunWindows"/>
/// finds the windows. RunStart names a run, the marker's wait (or the worker's RunBegin) opens it, RunEnd or the
/// marker's wake-up closes it; a harness's iterations are its own stage's (<see cref="BdnIterations"/>).
/// </summary>
internal sealed class RunWindowsStage(Sources.IMarkerWaits waits, HarnessInfo? harness) : IPassStage, Sources.IMarkerWaitSink
{
    private readonly Dictionary<int, string?> _markerMethodByStack = [];
    private BdnIterations? _bdnIterations;
    private IPass? _pass;

    private IPass Pass => _pass ?? throw new InvalidOperationException("the run windows are read before the pass");
    private RunWindows Windows => Pass.Windows;
    private BdnIterations Bdn => _bdnIterations ??= new BdnIterations(Windows, harness);
    private bool OwnRunsSeen => Windows.SawRunEvents || Windows.Unnamed > 0;

    public void Subscribe(TraceEventDispatcher source, IPass pass)
    {
        _pass = pass;
        source.AllEvents += OnEvent;
        waits.Subscribe(source, this);
    }

    void Sources.IMarkerWaitSink.WaitStart(TraceEvent e) => OnWaitStart(e);
    void Sources.IMarkerWaitSink.WaitStop(TraceEvent e) => OnWaitStop(e);
    void Sources.IMarkerWaitSink.MarkerWait(MarkerWait wait) => Windows.MarkerWait(wait);

    /// <summary>A run event's mark on the time line, also handed to the marker waits' source (ETW's follows the marker's switches from it).</summary>
    private void Mark(RunMark mark)
    {
        Pass.Timeline.RunMarks.Add(mark);
        waits.RunMark(mark);
    }

    private void OnEvent(TraceEvent e)
    {
        // GUIDs, not names: this runs for every event, and a name is a string comparison each time.
        if (e.ProviderGuid == RunEvents.ProviderGuid)
        {
            var t = e.TimeStampRelativeMSec;
            switch ((int)e.ID)
            {
                case RunEvents.RunStartId:
                    Pass.Scope.Marked(e.ProcessID);
                    Mark(new RunMark(t, RunMarkKind.Start, Int(e, RunEvents.Fields.MarkerThreadId), Int(e, RunEvents.Fields.WorkerThreadId)));
                    OnRunStart(e);
                    break;
                case RunEvents.RunStopId:
                    Mark(new RunMark(t, RunMarkKind.Stop, Int(e, RunEvents.Fields.MarkerThreadId), Int(e, RunEvents.Fields.WorkerThreadId)));
                    OnRunStop(e);
                    break;
                case RunEvents.RunThreadId:
                    Windows.RunThread(e.ThreadID, Int(e, RunEvents.Fields.ThreadId));
                    break;
                case RunEvents.RunBeginId:
                    Mark(new RunMark(t, RunMarkKind.Begin, 0, e.ThreadID));
                    OnRunBegin(e);
                    break;
                case RunEvents.RunEndId:
                    Mark(new RunMark(t, RunMarkKind.End, 0, e.ThreadID));
                    OnRunEnd(e);
                    break;
            }
        }
        else if (e.ProviderGuid == BdnEngineEvents.ProviderGuid) OnBdnEvent(e);
    }

    private static string Str(TraceEvent e, string field) => e.PayloadByName(field)?.ToString() ?? "";

    private static int Int(TraceEvent e, string field) => PayloadFields.Int32(e, field) ?? 0;

    private void OnBdnEvent(TraceEvent e)
    {
        // An ETW trace holds the whole machine: the process that runs the benchmarks is the one analyzed.
        Pass.Scope.Marked(e.ProcessID);
        var operations = PayloadFields.Int64(e, BdnEngineEvents.Fields.TotalOperations);
        Bdn.On(new BdnEvent((int)e.ID, e.ThreadID, e.TimeStampRelativeMSec, e.PayloadByName(BdnEngineEvents.Fields.BenchmarkName) as string, operations), OwnRunsSeen);
    }

    public static string Describe(RunKey k) => $"{k.Serializer}/{k.Operation}{(k.Objects == 0 ? "" : $"/N={k.Objects}")}/run {k.Run}";

    /// <summary>Partial results are kept only where valid: a run without an end has no duration to report.</summary>
    public void DropUnfinished()
    {
        var analysis = Pass.Analysis;
        if (Windows.DropUnended() is { } unended) analysis.WarningList.Add($"run {Describe(unended.Key)} never ended (trace cut short): left out");
        foreach (var begun in Windows.BegunBeforeTrace)
            analysis.WarningList.Add($"run {Describe(begun)} began before the trace (attached mid-run): left out");
    }

    /// <summary>BenchmarkDotNet's iterations, if they are the trace's runs; else what the trace lacked for the best run windows; what the waits' source lost.</summary>
    public void SayHowRunsWereFound()
    {
        var analysis = Pass.Analysis;
        if (_bdnIterations?.Finish(analysis, Pass.Options.Includes, OwnRunsSeen) != true)
        {
            // This project's runs (BenchmarkDotNet's say so in the Runs line).
            if (analysis.Runs.Count == 0 && !Windows.SawRunEvents) analysis.WarningList.Add($"no benchmark runs (no {RunEvents.ProviderName} events, no marker waits, no BenchmarkDotNet iterations): the analysis covers the whole trace, thread by thread");
            else if (!Windows.SawRunEvents) analysis.WarningList.Add($"no {RunEvents.ProviderName} events: runs found from the marker thread's waits only; their serializers are inferred from stack tags, their warm-ups from their order, N is unknown");
            else if (!Windows.SawWaits) analysis.WarningList.Add(waits.NoWaitsWarning);
        }
        if (waits.LostWarning is { } lost) analysis.WarningList.Add(lost);
        if (Windows.LateWindows > 0) analysis.WarningList.Add($"{Windows.LateWindows} run(s) had no RunBegin/RunEnd events: their window is the marker's wait, found after the fact, so CPU and events inside it were not attributed");
    }

    /// <summary>
    /// The window, not the marker's wait, is what every figure covers: warn when it is off the Stopwatch. The marker's
    /// wait events can lag the Stopwatch by milliseconds with the window still right (docs/analyzer.md "The marker's
    /// wait and the Stopwatch"), so they alone are no reason to warn. Then the trace says where its runs came from.
    /// </summary>
    public void CheckAgainstStopwatch()
    {
        var analysis = Pass.Analysis;
        var disagreements = new List<string>();
        foreach (var run in analysis.Runs)
        {
            if (run.StopwatchMs is { } sw && Math.Abs(run.EndMs - run.StartMs - sw) > 1.0)
                disagreements.Add($"{Describe(run.Key)} ({run.EndMs - run.StartMs:F2} vs {sw:F2} ms)");
        }
        if (disagreements.Count > 0)
            analysis.WarningList.Add($"{disagreements.Count} run(s) whose window and Stopwatch differ by more than 1 ms (no RunBegin/RunEnd: the window is the marker's wait, whose wake-up lags on a busy machine; their figures cover that longer window): {string.Join(", ", disagreements.Take(3))}{(disagreements.Count > 3 ? ", ..." : "")}");
        if (Windows.SawRunEvents) analysis.Trace = analysis.Trace with { RunSource = RunSource.RunEvents };
        else if (analysis.Runs.Count > 0 && analysis.Trace.RunSource == RunSource.None) analysis.Trace = analysis.Trace with { RunSource = RunSource.MarkerWaits };
    }

    private void OnRunStart(TraceEvent e)
    {
        var key = new RunKey(
            Str(e, RunEvents.Fields.Serializer), Str(e, RunEvents.Fields.Operation),
            Int(e, RunEvents.Fields.Objects), Int(e, RunEvents.Fields.Run));
        // Version 1 says which runs are warm-ups and how many calls a run makes; version 0 has neither.
        var warmup = e.PayloadByName(RunEvents.Fields.Warmup) is bool w ? w : (bool?)null;
        var operations = Math.Max(1L, PayloadFields.Int64(e, RunEvents.Fields.Operations) ?? 1L);
        Windows.RunStart(new RunStarted(key, Str(e, RunEvents.Fields.Data), Int(e, RunEvents.Fields.MarkerThreadId), Int(e, RunEvents.Fields.WorkerThreadId),
            e.TimeStampRelativeMSec, warmup, operations));
    }

    private void OnRunBegin(TraceEvent e) => Windows.RunBegin(e.ThreadID, ClockOf(e));

    private void OnRunEnd(TraceEvent e)
    {
        // Version 1 carries the Stopwatch's own reads, on the raw clock.
        var reads = e.PayloadByName(RunEvents.Fields.StartTimestamp) is long startTicks && e.PayloadByName(RunEvents.Fields.StopTimestamp) is long stopTicks
            ? (startTicks, stopTicks) : ((long, long)?)null;
        Windows.RunEnd(e.ThreadID, ClockOf(e), reads);
    }

#pragma warning disable CS0618 // "discouraged": the raw clock is what the Stopwatch reads are on.
    private static ClockRead ClockOf(TraceEvent e) => new(e.TimeStampQPC, e.TimeStampRelativeMSec);
#pragma warning restore CS0618

    private void OnRunStop(TraceEvent e)
    {
        var stopwatch = PayloadFields.Double(e, RunEvents.Fields.DurationMs) ?? 0;
        var key = new RunKey(Str(e, RunEvents.Fields.Serializer), Str(e, RunEvents.Fields.Operation), Int(e, RunEvents.Fields.Objects), Int(e, RunEvents.Fields.Run));
        Windows.RunStop(Int(e, RunEvents.Fields.MarkerThreadId), key, e.TimeStampRelativeMSec, stopwatch, PayloadFields.Int64(e, RunEvents.Fields.Exceptions));
    }

    private void OnWaitStart(TraceEvent e)
    {
        var stack = Pass.Stacks.StackOf(e);
        Windows.WaitStart(e.ThreadID, e.TimeStampRelativeMSec, MarkerMethodOf(stack), Pass.Named && stack >= 0);
    }

    private void OnWaitStop(TraceEvent e) => Windows.WaitStop(e.ThreadID, e.TimeStampRelativeMSec);

    private string? MarkerMethodOf(int stack)
    {
        if (!Pass.Named || stack < 0) return null;
        if (_markerMethodByStack.TryGetValue(stack, out var m)) return m;
        m = TraceAnalyzer.MarkerMethodOfFrames(Pass.Stacks.Frames(stack));
        _markerMethodByStack[stack] = m;
        return m;
    }

    /// <summary>
    /// A raw pass named the marker's waits before its rundown: the same answers with every method named, or the
    /// trace is analyzed again through TraceLog (<see cref="RawPassUnsure"/>).
    /// </summary>
    public bool MarkerAnswersHold() => _markerMethodByStack.All(p => TraceAnalyzer.MarkerMethodOfFrames(Pass.Stacks.Frames(p.Key)) == p.Value);

    /// <summary>
    /// Warm-up runs: as the run events say (version 1: the benchmark warms each case to steady state, a variable
    /// number of runs); from older traces, run 0 of each (serializer, operation, N) when there are more runs.
    /// </summary>
    public void MarkWarmups(bool cutShort)
    {
        foreach (var g in Pass.Analysis.Runs.GroupBy(r => (r.Key.Serializer, r.Key.Operation, r.Key.Objects)))
        {
            var flagged = g.All(r => r.WarmupFromEvents is not null);
            // A case of warm-up runs alone reads as measured, unless the recording was cut during its warm-up.
            if (flagged) foreach (var r in g) r.IsWarmup = r.WarmupFromEvents!.Value && (cutShort || Pass.Analysis.Trace.Truncated || g.Any(x => x.WarmupFromEvents == false));
            else if (g.Count() > 1) foreach (var r in g) r.IsWarmup = r.Key.Run == 0;
        }
    }
}
