using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Timeline;
using EtwSerializerProfiler.Common;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>Run windows: RunStart names a run, the marker's wait (or the worker's RunBegin) opens it, RunEnd or the marker's wake-up closes it.</summary>
    private sealed partial class PassState
    {
        private void OnRunStart(TraceEvent e)
        {
            _sawRunEvents = true;
            var key = new RunKey(
                Str(e, RunEvents.Fields.Serializer), Str(e, RunEvents.Fields.Operation),
                Int(e, RunEvents.Fields.Objects), Int(e, RunEvents.Fields.Run));
            // Version 1 says which runs are warm-ups and how many calls a run makes; version 0 has neither.
            var warmup = e.PayloadByName(RunEvents.Fields.Warmup) is bool w ? w : (bool?)null;
            var operations = e.PayloadByName(RunEvents.Fields.Operations) is { } ops ? Math.Max(1L, Convert.ToInt64(ops, System.Globalization.CultureInfo.InvariantCulture)) : 1L;
            var pending = new PendingRun(key, Str(e, RunEvents.Fields.Data), Int(e, RunEvents.Fields.WorkerThreadId), e.TimeStampRelativeMSec, warmup, operations);
            _pendingByMarker[Int(e, RunEvents.Fields.MarkerThreadId)] = pending;
        }

        /// <summary>
        /// The worker's RunBegin/RunEnd sit next to its Stopwatch reads, while the marker's wake-ups can lag by
        /// milliseconds on a busy machine, so they set the window's edges; the marker's wait is kept alongside
        /// (it is what WPA shows) and compared. RunBegin can precede the marker's wait event when the marker is
        /// preempted between arming and blocking, so either one opens the run.
        /// </summary>
        private void OnRunBegin(TraceEvent e)
        {
            _sawRunBegin = true;
            _runBeginClock = (ClockTicks(e), e.TimeStampRelativeMSec);
            if (_open is { Closed: false } open && open.WorkerThreadId == e.ThreadID)
            {
                open.StartMs = e.TimeStampRelativeMSec;
                _awaitingBegin = false;
                return;
            }
            var (marker, pending) = PendingForWorker(e.ThreadID);
            if (pending is null) return;
            NewRun(pending, marker, e.ThreadID, e.TimeStampRelativeMSec, WindowSource.RunEvents);
        }

        private void OnRunEnd(TraceEvent e)
        {
            if (_open is not { Closed: false } open || open.WorkerThreadId != e.ThreadID) return;
            open.EndMs = e.TimeStampRelativeMSec;
            open.Closed = true;
            PinToStopwatch(open, e);
        }

        /// <summary>
        /// RunEnd version 1 carries the Stopwatch's own reads. Between them and the events sit the thread CPU clock
        /// read and the event writes, where a busy machine deschedules the worker (measured: windows 0.03-10 ms longer
        /// than the Stopwatch, issue 22), so the window goes exactly to the reads when they fall inside the events'
        /// edges, as they must on a shared clock (Stopwatch and the trace both use QPC, CLOCK_MONOTONIC on Linux);
        /// otherwise (a clock the trace does not share) the events' edges stay.
        /// </summary>
        private void PinToStopwatch(RunAnalysis open, TraceEvent e)
        {
            if (e.PayloadByName(RunEvents.Fields.StartTimestamp) is not long startTicks || e.PayloadByName(RunEvents.Fields.StopTimestamp) is not long stopTicks) return;
            // TraceEvent keeps the clock's frequency to itself: RunBegin and RunEnd, both on the raw clock and in ms, give it.
            if (_runBeginClock is not var (beginTicks, beginMs)) return;
            var endTicks = ClockTicks(e);
            if (endTicks <= beginTicks || e.TimeStampRelativeMSec <= beginMs) return;
            var msPerTick = (e.TimeStampRelativeMSec - beginMs) / (endTicks - beginTicks);
            const double SlackMs = 0.01;
            var start = beginMs + (startTicks - beginTicks) * msPerTick;
            var stop = beginMs + (stopTicks - beginTicks) * msPerTick;
            if (start > stop || start < beginMs - SlackMs || stop > e.TimeStampRelativeMSec + SlackMs) return;
            open.EventEdgesMs = (open.StartMs, open.EndMs);
            open.StartMs = start;
            open.EndMs = stop;
            open.PinnedToStopwatch = true;
        }

#pragma warning disable CS0618 // "discouraged": the raw clock is what the Stopwatch reads are on.
        private static long ClockTicks(TraceEvent e) => e.TimeStampQPC;
#pragma warning restore CS0618

        private void OnRunStop(TraceEvent e)
        {
            var marker = Int(e, RunEvents.Fields.MarkerThreadId);
            var stopwatch = Convert.ToDouble(e.PayloadByName(RunEvents.Fields.DurationMs), System.Globalization.CultureInfo.InvariantCulture);
            var key = new RunKey(Str(e, RunEvents.Fields.Serializer), Str(e, RunEvents.Fields.Operation), Int(e, RunEvents.Fields.Objects), Int(e, RunEvents.Fields.Run));
            if (_pendingByMarker.Remove(marker, out var pending) && pending.Key == key)
            {
                // Neither RunBegin nor a marker wait was seen (an older benchmark, or a profile without them):
                // RunStart/RunStop bound the run, events in between could not be attributed as they came.
                var late = NewRun(pending, marker, pending.WorkerThreadId, pending.StartEventMs, WindowSource.RunEvents);
                late.EndMs = e.TimeStampRelativeMSec;
                late.Closed = true;
                _open = null;
            }
            if (_open is { } open && open.Key == key && open.MarkerThreadId == marker)
            {
                if (!open.Closed) { open.EndMs = e.TimeStampRelativeMSec; open.Closed = true; }
                _open = null;
            }
            var run = analysis.Runs.LastOrDefault(r => r.Key == key && r.MarkerThreadId == marker);
            if (run is not null) run.StopwatchMs = stopwatch;
        }

        private void OnWaitStart(TraceEvent e)
        {
            _sawWaits = true;
            if (_open is { } open && open.MarkerThreadId == e.ThreadID && open.MarkerWaitStartMs is null)
            {
                // The run was opened by the worker's RunBegin a moment earlier: this is its marker wait.
                open.MarkerWaitStartMs = e.TimeStampRelativeMSec;
                open.Source = WindowSource.MarkerWait;
                return;
            }
            var isMarkerWait = _pendingByMarker.TryGetValue(e.ThreadID, out var pending);
            var markerMethod = MarkerMethodOf(e.CallStackIndex());
            if (!isMarkerWait && markerMethod is null) return;
            if (isMarkerWait && markerMethod is null && stacks is not null && e.CallStackIndex() != CallStackIndex.Invalid)
                return; // a wait of the marker thread that is not the run wait (e.g. its idle wait)
            if (pending is not null) _pendingByMarker.Remove(e.ThreadID);
            // Without RunStart the run is named afterwards, from its samples' stack tags (NameUnnamedRuns).
            var key = pending?.Key ?? new RunKey(Harness.StackTagRunNames.Unnamed, RunEvents.OperationOfMarkerMethod(markerMethod), 0, _unnamed++);
            var run = NewRun(pending ?? new PendingRun(key, "", 0, e.TimeStampRelativeMSec, null, 1), e.ThreadID, pending?.WorkerThreadId ?? 0, e.TimeStampRelativeMSec, WindowSource.MarkerWait);
            run.MarkerWaitStartMs = e.TimeStampRelativeMSec;
            // The worker's RunBegin will move the start to its Stopwatch read; until then it is still handshaking
            // (milliseconds, when it is descheduled), and that is not the run's cost.
            _awaitingBegin = _sawRunBegin && pending is not null;
        }

        private void OnWaitStop(TraceEvent e)
        {
            if (_open is not { } open || e.ThreadID != open.MarkerThreadId || open.MarkerWaitStartMs is null) return;
            open.MarkerWaitEndMs = e.TimeStampRelativeMSec;
            if (!open.Closed) { open.EndMs = e.TimeStampRelativeMSec; open.Closed = true; }
        }

        /// <summary>
        /// A marker wait found in context switches. Usually the worker's RunBegin opened the run already and the wait
        /// is kept alongside, as on EventPipe; without RunBegin the wait is the only window, found only after the fact.
        /// </summary>
        private void OnMarkerWait(MarkerWait wait)
        {
            _sawWaits = true;
            if (_pendingByMarker.Remove(wait.MarkerThreadId, out var pending))
            {
                var late = NewRun(pending, wait.MarkerThreadId, pending.WorkerThreadId, wait.StartMs, WindowSource.MarkerWait);
                late.EndMs = wait.EndMs;
                late.Closed = true;
                late.MarkerWaitStartMs = wait.StartMs;
                late.MarkerWaitEndMs = wait.EndMs;
                _open = null;
                _lateWindows++;
                return;
            }
            var run = analysis.Runs.LastOrDefault(r => r.MarkerThreadId == wait.MarkerThreadId);
            if (run is null || run.MarkerWaitStartMs is not null) return;
            // The run wait spans RunEnd; an older run of this marker (the newest one was filtered out) does not match.
            if (run.Closed && (wait.StartMs > run.EndMs || wait.EndMs < run.EndMs)) return;
            run.MarkerWaitStartMs = wait.StartMs;
            run.MarkerWaitEndMs = wait.EndMs;
            run.Source = WindowSource.MarkerWait;
        }

        private (int Marker, PendingRun? Pending) PendingForWorker(int worker)
        {
            foreach (var (marker, pending) in _pendingByMarker)
                if (pending.WorkerThreadId == worker)
                {
                    _pendingByMarker.Remove(marker);
                    return (marker, pending);
                }
            return (0, null);
        }

        private RunAnalysis NewRun(PendingRun pending, int marker, int worker, double startMs, WindowSource source)
        {
            var key = pending.Key;
            var run = new RunAnalysis
            {
                Key = key, Data = pending.Data, MarkerThreadId = marker, WorkerThreadId = worker, StartMs = startMs, EndMs = startMs, Source = source,
                Operations = pending.Operations, WarmupFromEvents = pending.Warmup,
            };
            if (Wanted(key)) analysis.Runs.Add(run);
            // Runs are strictly sequential (the benchmark's handshake), so a new window closes any stale one.
            if (_open is not null && !_open.Closed) { _open.EndMs = startMs; _open.Closed = true; }
            _open = run;
            _openMarker = marker;
            _awaitingBegin = false;
            return run;
        }

        private string? MarkerMethodOf(CallStackIndex stack)
        {
            if (stacks is null || stack == CallStackIndex.Invalid) return null;
            if (_markerMethodByStack.TryGetValue(stack, out var m)) return m;
            m = null;
            foreach (var f in stacks.Frames(stack))
            {
                if (!f.Method.Contains("MarkerThread", StringComparison.Ordinal)) continue;
                m = MarkerMethods.FirstOrDefault(name => f.Method.Contains("." + name + "(", StringComparison.Ordinal));
                if (m is not null) break;
            }
            _markerMethodByStack[stack] = m;
            return m;
        }

        /// <summary>
        /// Warm-up runs: as the run events say (version 1: the benchmark warms each case to steady state, a variable
        /// number of runs); from older traces, run 0 of each (serializer, operation, N) when there are more runs.
        /// </summary>
        private void MarkWarmups()
        {
            foreach (var g in analysis.Runs.GroupBy(r => (r.Key.Serializer, r.Key.Operation, r.Key.Objects)))
            {
                var flagged = g.All(r => r.WarmupFromEvents is not null);
                if (flagged) foreach (var r in g) r.IsWarmup = r.WarmupFromEvents!.Value && g.Any(x => x.WarmupFromEvents == false);
                else if (g.Count() > 1) foreach (var r in g) r.IsWarmup = r.Key.Run == 0;
            }
        }
    }
}
