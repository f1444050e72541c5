using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// Why a run's worker (and each thread of its --threads crew) was off the CPU inside its window, from the kernel's context switches: each stretch from a
/// switch-out to the next switch-in is split by what it overlaps (a GC's suspension, another runtime suspension such
/// as EventPipe's sampler, a contended lock) and otherwise by the kernel's own state: preempted while runnable, a
/// wait until the wake-up and ready (woken, no CPU yet) after it, or uninterruptible sleep (I/O, page-in).
/// </summary>
/// <remarks>
/// Streaming: the records come chunk by chunk in time order (<see cref="PerfScriptReader.ReadChunks"/>), and only the
/// runs' workers' are looked at. A worker's switch-out opens a stretch; the first OUT record and wake-up after it
/// are noted as they come; the first switch-in after it closes it, and it is split into the runs it reaches into
/// (a worker's runs, in time order, found from a cursor), then dropped. A stretch visits only the pauses and lock
/// waits that can overlap it (<see cref="IntervalOverlaps"/>). Nothing is kept per record but the open stretches.
/// </remarks>
internal sealed class OffCpuClassifier
{

    /// <summary>A stretch open since a switch-out: when, in which state, and the first OUT record and wake-up after it (∞ until seen).</summary>
    private sealed class Open(double outMs, char state)
    {
        public double OutMs { get; } = outMs;
        public char State { get; } = state;
        public double RecordMs { get; set; } = double.PositiveInfinity;
        public double WokenMs { get; set; } = double.PositiveInfinity;
    }

    /// <summary>One worker: its runs in time order, the first that can still be reached, its open stretches.</summary>
    private sealed class Worker(int threadId, List<RunDraft> runs, IntervalOverlaps locks)
    {
        public int ThreadId { get; } = threadId;
        public List<RunDraft> Runs { get; } = runs;
        public IntervalOverlaps Locks { get; } = locks;
        public int FirstRun { get; set; }
        public List<Open> Stretches { get; } = [];
    }

    private enum Kind { Out, Record, Wake, In }

    private readonly KernelClock _clock;
    private readonly Dictionary<int, Worker> _workers;
    /// <summary>GC pause time in a span: the charge's sorted pauses when given (one copy of a list as long as the trace's GCs), else the time line's.</summary>
    private readonly Func<double, double, double> _gcMs;
    private readonly IntervalOverlaps _suspensions;
    private readonly List<(double Ms, Kind Kind, int Thread, char State)> _records = [];
    private bool _sawSwitchIns;

    public OffCpuClassifier(IReadOnlyList<RunDraft> runs, PassTimeline timeline, GcPauses? pauses = null)
    {
        _clock = timeline.Clock;
        _gcMs = pauses is not null ? pauses.Overlap : new IntervalOverlaps(timeline.GcPauses).Sum;
        _suspensions = new IntervalOverlaps(timeline.OtherSuspensions);
        // Loops, not LINQ over (thread, run) tuples: that ran as tier-0 JIT code in the ReadyToRun build.
        var waits = new Dictionary<int, List<Interval>>();
        foreach (var c in timeline.Contention)
        {
            if (!waits.TryGetValue(c.ThreadId, out var list)) waits[c.ThreadId] = list = [];
            list.Add(c.Wait);
        }
        // Only the runs' threads are classified: the worker, or with --threads its crew (each thread's off-CPU time
        // its own, so a crew of T has T threads' time per window; the worker then only waits for the crew, the
        // harness's wait, not the calls'); the other threads' records (marker, EventPipe, the runtime's) need no stretches.
        var runsOf = new Dictionary<int, List<RunDraft>>();
        var threads = new List<int>();
        void Add(int thread, RunDraft run)
        {
            if (!runsOf.TryGetValue(thread, out var list)) { runsOf[thread] = list = []; threads.Add(thread); }
            list.Add(run);
        }
        foreach (var r in runs)
        {
            if (r.WorkerThreadId == 0) continue;
            if (r.CrewThreadIds.Count == 0) Add(r.WorkerThreadId, r);
            else foreach (var t in r.CrewThreadIds) Add(t, r);
        }
        _workers = new Dictionary<int, Worker>(threads.Count);
        foreach (var t in threads)
            _workers[t] = new Worker(t, [.. runsOf[t].OrderBy(r => r.StartMs)], waits.TryGetValue(t, out var w) ? new IntervalOverlaps(w) : new IntervalOverlaps([]));
    }

    /// <summary>Where each stretch goes as well, split as the tables split it (<see cref="AnalyzerOptions.KeepMarks"/>); null: the tables only.</summary>
    public TraceMarksDraft? Marks { get; init; }

    /// <summary>A trace read whole: every run's off-CPU table.</summary>
    public static void Classify(IReadOnlyList<RunDraft> runs, KernelTrace kernel, PassTimeline timeline)
    {
        var classifier = new OffCpuClassifier(runs, timeline);
        classifier.Add(kernel);
        classifier.Finish();
    }

    /// <summary>The next chunk's switches, OUT records and wake-ups of the workers.</summary>
    public void Add(KernelTrace chunk)
    {
        if (chunk.SwitchIns.Count > 0) _sawSwitchIns = true;
        _records.Clear();
        foreach (var s in chunk.SwitchOuts) Note(s.TimeNs, Kind.Out, s.ThreadId, s.State);
        foreach (var (ns, thread) in chunk.SwitchOutRecords) Note(ns, Kind.Record, thread, ' ');
        foreach (var w in chunk.Wakings) Note(w.TimeNs, Kind.Wake, w.ThreadId, ' ');
        // A stretch ends where on-CPU time starts (SwitchInCredit): the switch itself is the thread's CPU.
        foreach (var (ns, thread) in chunk.OnCpuStarts) Note(ns, Kind.In, thread, ' ');
        // In time order; at one time the order of kinds does not matter: only what comes strictly after a switch-out counts.
        _records.Sort(static (a, b) => a.Ms.CompareTo(b.Ms));
        foreach (var (ms, kind, thread, state) in _records) Step(_workers[thread], ms, kind, state);

        void Note(long ns, Kind kind, int thread, char state)
        {
            if (_workers.ContainsKey(thread)) _records.Add((_clock.ToRelativeMs(ns), kind, thread, state));
        }
    }

    /// <summary>The text is read: stretches never switched back in reach to the end of their runs.</summary>
    public void Finish()
    {
        foreach (var worker in _workers.Values)
        {
            // A recording without switch-ins has no stretches (it cannot say when any ended).
            if (_sawSwitchIns) foreach (var open in worker.Stretches) Close(worker, open, double.PositiveInfinity);
            worker.Stretches.Clear();
        }
    }

    private void Step(Worker worker, double ms, Kind kind, char state)
    {
        switch (kind)
        {
            case Kind.Out: worker.Stretches.Add(new Open(ms, state)); break;
            case Kind.Record:
                foreach (var open in worker.Stretches) if (open.OutMs < ms && double.IsPositiveInfinity(open.RecordMs)) open.RecordMs = ms;
                break;
            case Kind.Wake:
                foreach (var open in worker.Stretches) if (open.OutMs < ms && double.IsPositiveInfinity(open.WokenMs)) open.WokenMs = ms;
                break;
            case Kind.In:
                var closed = 0;
                foreach (var open in worker.Stretches)
                {
                    if (open.OutMs >= ms) break;
                    Close(worker, open, ms);
                    closed++;
                }
                worker.Stretches.RemoveRange(0, closed);
                break;
        }
    }

    /// <summary>A stretch from its switch-out to the switch-in at <paramref name="nextIn"/> (∞: none), split into the runs it reaches into.</summary>
    private void Close(Worker worker, Open open, double nextIn)
    {
        // The stretch starts where the on-CPU time ends (SwitchCpuTime): at perf's OUT record just after the
        // tracepoint, when it has one before the next switch-in, so on- and off-CPU time add up to the window.
        var outMs = open.RecordMs < nextIn ? open.RecordMs : open.OutMs;
        var runs = worker.Runs;
        // Runs are in time order and stretches close in time order: runs over before this stretch starts are over for the rest.
        while (worker.FirstRun < runs.Count && runs[worker.FirstRun].EndMs <= outMs && !OverlapsLater(runs, worker.FirstRun)) worker.FirstRun++;
        for (var r = worker.FirstRun; r < runs.Count && runs[r].StartMs < nextIn; r++)
        {
            var run = runs[r];
            var inMs = double.IsPositiveInfinity(nextIn) ? run.EndMs : nextIn;
            var from = Math.Max(outMs, run.StartMs);
            var to = Math.Min(inMs, run.EndMs);
            if (to <= from) continue;
            if (open.State is 'R')
            {
                Add(run, OffCpuReason.Preempted, to - from);
                Mark(worker, from, to, OffCpuReason.Preempted);
                continue;
            }
            // Woken inside the stretch: from then on it only waited for a CPU.
            var woken = open.WokenMs < inMs ? Math.Clamp(open.WokenMs, from, to) : to;
            if (to > woken)
            {
                Add(run, OffCpuReason.Ready, to - woken);
                Mark(worker, woken, to, OffCpuReason.Ready);
            }
            var waited = SplitWait(run, from, woken, open.State, _gcMs, _suspensions, worker.Locks);
            if (woken > from) Mark(worker, from, woken, waited);
        }
    }

    private void Mark(Worker worker, double from, double to, OffCpuReason reason) => Marks?.OffCpuStretch(new OffCpuMark(worker.ThreadId, from, to, reason));

    /// <summary>Whether a later run of the worker started before this one ended (runs of one worker do not overlap, but a damaged trace's might): then the cursor stays.</summary>
    private static bool OverlapsLater(List<RunDraft> runs, int r) => r + 1 < runs.Count && runs[r + 1].StartMs < runs[r].EndMs;

    /// <returns>The reason that took most of the wait (what a time line names the stretch by).</returns>
    private static OffCpuReason SplitWait(RunDraft run, double from, double to, char state, Func<double, double, double> gcMs, IntervalOverlaps suspensions, IntervalOverlaps locks)
    {
        var waited = state == 'D' ? OffCpuReason.Uninterruptible : OffCpuReason.Waiting;
        if (to <= from) return waited;
        var gc = gcMs(from, to);
        var other = suspensions.Sum(from, to);
        var lockMs = locks.Sum(from, to);
        var rest = to - from;
        var (most, mostMs) = (waited, 0.0);
        foreach (var (reason, ms) in new[] { (OffCpuReason.Gc, gc), (OffCpuReason.Suspension, other), (OffCpuReason.Lock, lockMs) })
        {
            var taken = Math.Min(ms, rest);
            if (taken > 0) Add(run, reason, taken);
            if (taken > mostMs) (most, mostMs) = (reason, taken);
            rest -= taken;
        }
        if (rest > 0) Add(run, waited, rest);
        return rest >= mostMs ? waited : most;
    }

    private static void Add(RunDraft run, OffCpuReason reason, double ms) => run.OffCpuTable[reason] = run.OffCpuMs.GetValueOrDefault(reason) + ms;
}
