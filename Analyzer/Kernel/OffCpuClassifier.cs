using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// Why a run's worker was off the CPU inside its window, from the kernel's context switches: each stretch from a
/// switch-out to the next switch-in is split by what it overlaps (a GC's suspension, another runtime suspension such
/// as EventPipe's sampler, a contended lock) and otherwise by the kernel's own state: preempted while runnable, a
/// wait until the wake-up and ready (woken, no CPU yet) after it, or uninterruptible sleep (I/O, page-in).
/// </summary>
/// <remarks>
/// Speed: each thread's stretches are found once, by a merge walk of its switch-outs with its switch-ins and
/// wake-ups (all in time order); a run then visits only the stretches that reach into its window, and a stretch
/// only the pauses and lock waits that can overlap it (<see cref="IntervalOverlaps"/>).
/// </remarks>
internal static class OffCpuClassifier
{
    public const string Gc = "GC (runtime suspended)";
    public const string Suspension = "runtime suspension, not GC (EventPipe sampler, tiering)";
    public const string Lock = "lock contention";
    public const string Preempted = "preempted (runnable, no CPU)";
    public const string Ready = "ready (woken, no CPU yet)";
    public const string Uninterruptible = "uninterruptible (I/O, page-in)";
    public const string Waiting = "waiting (other)";

    /// <summary>One switch-out of a thread: when, in which state, and the first switch-in and wake-up after it (∞ when none).</summary>
    private readonly record struct Stretch(double OutMs, char State, double InMs, double WokenMs);

    public static void Classify(IReadOnlyList<RunDraft> runs, KernelTrace kernel, PassTimeline timeline)
    {
        if (!kernel.HasSwitchIns) return;
        var clock = timeline.Clock;
        // Only the runs' workers are classified: the other threads' records (marker, EventPipe, the runtime's) need no stretches.
        var workers = runs.Select(r => r.WorkerThreadId).Where(t => t != 0).ToHashSet();
        var ins = TimesByWorker(kernel.SwitchIns, s => s.ThreadId, s => s.TimeNs);
        var wakes = TimesByWorker(kernel.Wakings, w => w.ThreadId, w => w.TimeNs);
        var outRecords = TimesByWorker(kernel.SwitchOutRecords, s => s.ThreadId, s => s.TimeNs);
        var stretches = kernel.SwitchOuts.Where(s => workers.Contains(s.ThreadId)).GroupBy(s => s.ThreadId).ToDictionary(g => g.Key, g =>
        {
            var outs = g.Select(s => (Ms: clock.ToRelativeMs(s.TimeNs), s.State)).ToArray();
            var outMs = outs.Select(o => o.Ms).ToArray();
            var inMs = FirstAfterEach(ins.GetValueOrDefault(g.Key) ?? [], outMs);
            var wokenMs = FirstAfterEach(wakes.GetValueOrDefault(g.Key) ?? [], outMs);
            // The stretch starts where the on-CPU time ends (SwitchCpuTime): at perf's OUT record just after the
            // tracepoint, when it has one before the next switch-in, so on- and off-CPU time add up to the window.
            var recordMs = FirstAfterEach(outRecords.GetValueOrDefault(g.Key) ?? [], outMs);
            var inOrder = outMs.Zip(outMs.Skip(1)).All(p => p.First <= p.Second);
            return (Items: outs.Select((o, i) => new Stretch(recordMs[i] < inMs[i] ? recordMs[i] : o.Ms, o.State, inMs[i], wokenMs[i])).ToArray(), InOrder: inOrder);
        });
        var pauses = new IntervalOverlaps(timeline.GcPauses);

        // A worker's records of one kind, on the trace's clock, in their (time) order.
        Dictionary<int, double[]> TimesByWorker<T>(IEnumerable<T> records, Func<T, int> thread, Func<T, long> timeNs) =>
            records.Where(r => workers.Contains(thread(r))).GroupBy(thread).ToDictionary(g => g.Key, g => g.Select(r => clock.ToRelativeMs(timeNs(r))).ToArray());
        var suspensions = new IntervalOverlaps(timeline.OtherSuspensions);
        var locks = timeline.Contention.GroupBy(c => c.ThreadId).ToDictionary(g => g.Key, g => new IntervalOverlaps(g.Select(c => c.Wait).ToList()));
        var noLocks = new IntervalOverlaps([]);
        foreach (var run in runs)
        {
            if (run.WorkerThreadId == 0 || !stretches.TryGetValue(run.WorkerThreadId, out var found)) continue;
            var (thread, inOrder) = found;
            var threadLocks = locks.GetValueOrDefault(run.WorkerThreadId) ?? noLocks;
            // Stretches are in time order and so are their switch-ins: those before the first ending after the run's
            // start, and those from the first starting at or after its end, have nothing inside the window. (Out of
            // order, as only a damaged file could be, every stretch is looked at.)
            for (var i = inOrder ? FirstInAfter(thread, run.StartMs) : 0; i < thread.Length && (!inOrder || thread[i].OutMs < run.EndMs); i++)
            {
                var (outMs, state, nextIn, nextWake) = thread[i];
                var inMs = double.IsPositiveInfinity(nextIn) ? run.EndMs : nextIn;
                var from = Math.Max(outMs, run.StartMs);
                var to = Math.Min(inMs, run.EndMs);
                if (to <= from) continue;
                if (state is 'R') { Add(run, Preempted, to - from); continue; }
                // Woken inside the stretch: from then on it only waited for a CPU.
                var woken = nextWake < inMs ? Math.Clamp(nextWake, from, to) : to;
                if (to > woken) Add(run, Ready, to - woken);
                SplitWait(run, from, woken, state, pauses, suspensions, threadLocks);
            }
        }
    }

    private static void SplitWait(RunDraft run, double from, double to, char state, IntervalOverlaps pauses, IntervalOverlaps suspensions, IntervalOverlaps locks)
    {
        if (to <= from) return;
        var gc = pauses.Sum(from, to);
        var other = suspensions.Sum(from, to);
        var lockMs = locks.Sum(from, to);
        var rest = to - from;
        foreach (var (reason, ms) in new[] { (Gc, gc), (Suspension, other), (Lock, lockMs) })
        {
            var taken = Math.Min(ms, rest);
            if (taken > 0) Add(run, reason, taken);
            rest -= taken;
        }
        if (rest > 0) Add(run, state == 'D' ? Uninterruptible : Waiting, rest);
    }

    /// <summary>
    /// For each query, the first value after it (∞ when none): one merge walk when the queries are in time order,
    /// as a thread's switch-outs are; a binary search per query otherwise.
    /// </summary>
    private static double[] FirstAfterEach(double[] sorted, double[] queries)
    {
        var result = new double[queries.Length];
        var j = 0;
        for (var i = 0; i < queries.Length; i++)
        {
            if (i > 0 && queries[i] < queries[i - 1]) j = 0; // out of order: walk again from the start
            while (j < sorted.Length && sorted[j] <= queries[i]) j++;
            result[i] = j < sorted.Length ? sorted[j] : double.PositiveInfinity;
        }
        return result;
    }

    /// <summary>The first stretch whose switch-in comes after <paramref name="ms"/> (switch-ins are in time order).</summary>
    private static int FirstInAfter(Stretch[] thread, double ms)
    {
        int lo = 0, hi = thread.Length;
        while (lo < hi)
        {
            var mid = (lo + hi) >>> 1;
            if (thread[mid].InMs > ms) hi = mid; else lo = mid + 1;
        }
        return lo;
    }

    private static void Add(RunDraft run, string reason, double ms) => run.OffCpuTable[reason] = run.OffCpuMs.GetValueOrDefault(reason) + ms;
}
