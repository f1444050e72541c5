using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Timeline;
using EtwSerializerProfiler.Common;
using Microsoft.Diagnostics.Tracing;
using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>
    /// Run windows: the pass reads the run events' and waits' payloads; <see cref="RunWindows"/> finds the windows.
    /// RunStart names a run, the marker's wait (or the worker's RunBegin) opens it, RunEnd or the marker's wake-up closes it.
    /// </summary>
    private sealed partial class PassState
    {
        private void OnRunStart(TraceEvent e)
        {
            var key = new RunKey(
                Str(e, RunEvents.Fields.Serializer), Str(e, RunEvents.Fields.Operation),
                Int(e, RunEvents.Fields.Objects), Int(e, RunEvents.Fields.Run));
            // Version 1 says which runs are warm-ups and how many calls a run makes; version 0 has neither.
            var warmup = e.PayloadByName(RunEvents.Fields.Warmup) is bool w ? w : (bool?)null;
            var operations = Math.Max(1L, PayloadFields.Int64(e, RunEvents.Fields.Operations) ?? 1L);
            _windows.RunStart(new RunStarted(key, Str(e, RunEvents.Fields.Data), Int(e, RunEvents.Fields.MarkerThreadId), Int(e, RunEvents.Fields.WorkerThreadId),
                e.TimeStampRelativeMSec, warmup, operations));
        }

        private void OnRunBegin(TraceEvent e) => _windows.RunBegin(e.ThreadID, ClockOf(e));

        private void OnRunEnd(TraceEvent e)
        {
            // Version 1 carries the Stopwatch's own reads, on the raw clock.
            var reads = e.PayloadByName(RunEvents.Fields.StartTimestamp) is long startTicks && e.PayloadByName(RunEvents.Fields.StopTimestamp) is long stopTicks
                ? (startTicks, stopTicks) : ((long, long)?)null;
            _windows.RunEnd(e.ThreadID, ClockOf(e), reads);
        }

#pragma warning disable CS0618 // "discouraged": the raw clock is what the Stopwatch reads are on.
        private static ClockRead ClockOf(TraceEvent e) => new(e.TimeStampQPC, e.TimeStampRelativeMSec);
#pragma warning restore CS0618

        private void OnRunStop(TraceEvent e)
        {
            var stopwatch = PayloadFields.Double(e, RunEvents.Fields.DurationMs) ?? 0;
            var key = new RunKey(Str(e, RunEvents.Fields.Serializer), Str(e, RunEvents.Fields.Operation), Int(e, RunEvents.Fields.Objects), Int(e, RunEvents.Fields.Run));
            _windows.RunStop(Int(e, RunEvents.Fields.MarkerThreadId), key, e.TimeStampRelativeMSec, stopwatch, PayloadFields.Int64(e, RunEvents.Fields.Exceptions));
        }

        private void OnWaitStart(TraceEvent e)
        {
            var stack = stacks.StackOf(e);
            _windows.WaitStart(e.ThreadID, e.TimeStampRelativeMSec, MarkerMethodOf(stack), Named && stack >= 0);
        }

        private void OnWaitStop(TraceEvent e) => _windows.WaitStop(e.ThreadID, e.TimeStampRelativeMSec);

        private string? MarkerMethodOf(int stack)
        {
            if (!Named || stack < 0) return null;
            if (_markerMethodByStack.TryGetValue(stack, out var m)) return m;
            m = MarkerMethodOfFrames(stacks.Frames(stack));
            _markerMethodByStack[stack] = m;
            return m;
        }

        /// <summary>
        /// A raw pass named the marker's waits before its rundown: the same answers with every method named, or the
        /// trace is analyzed again through TraceLog (<see cref="RawPassUnsure"/>).
        /// </summary>
        private bool MarkerAnswersHold() => _markerMethodByStack.All(p => MarkerMethodOfFrames(stacks.Frames(p.Key)) == p.Value);

        /// <summary>
        /// Warm-up runs: as the run events say (version 1: the benchmark warms each case to steady state, a variable
        /// number of runs); from older traces, run 0 of each (serializer, operation, N) when there are more runs.
        /// </summary>
        private void MarkWarmups(bool cutShort)
        {
            foreach (var g in analysis.Runs.GroupBy(r => (r.Key.Serializer, r.Key.Operation, r.Key.Objects)))
            {
                var flagged = g.All(r => r.WarmupFromEvents is not null);
                // A case of warm-up runs alone reads as measured, unless the recording was cut during its warm-up.
                if (flagged) foreach (var r in g) r.IsWarmup = r.WarmupFromEvents!.Value && (cutShort || analysis.Trace.Truncated || g.Any(x => x.WarmupFromEvents == false));
                else if (g.Count() > 1) foreach (var r in g) r.IsWarmup = r.Key.Run == 0;
            }
        }
    }
}
