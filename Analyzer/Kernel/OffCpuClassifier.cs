using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// Why a run's worker was off the CPU inside its window, from the kernel's context switches: each stretch from a
/// switch-out to the next switch-in is split by what it overlaps (a GC's suspension, another runtime suspension such
/// as EventPipe's sampler, a contended lock) and otherwise by the kernel's own state: preempted while runnable, a
/// wait until the wake-up and ready (woken, no CPU yet) after it, or uninterruptible sleep (I/O, page-in).
/// </summary>
internal static class OffCpuClassifier
{
    public const string Gc = "GC (runtime suspended)";
    public const string Suspension = "runtime suspension, not GC (EventPipe sampler, tiering)";
    public const string Lock = "lock contention";
    public const string Preempted = "preempted (runnable, no CPU)";
    public const string Ready = "ready (woken, no CPU yet)";
    public const string Uninterruptible = "uninterruptible (I/O, page-in)";
    public const string Waiting = "waiting (other)";

    public static void Classify(IReadOnlyList<RunAnalysis> runs, KernelTrace kernel, PassTimeline timeline)
    {
        if (!kernel.HasSwitchIns) return;
        var clock = timeline.Clock;
        var outs = kernel.SwitchOuts.GroupBy(s => s.ThreadId).ToDictionary(g => g.Key, g => g.Select(s => (Ms: clock.ToRelativeMs(s.TimeNs), s.State)).ToArray());
        var ins = kernel.SwitchIns.GroupBy(s => s.ThreadId).ToDictionary(g => g.Key, g => g.Select(s => clock.ToRelativeMs(s.TimeNs)).ToArray());
        var wakes = kernel.Wakings.GroupBy(w => w.ThreadId).ToDictionary(g => g.Key, g => g.Select(w => clock.ToRelativeMs(w.TimeNs)).ToArray());
        var locks = timeline.Contention.GroupBy(c => c.ThreadId).ToDictionary(g => g.Key, g => g.Select(c => c.Wait).ToList());
        foreach (var run in runs)
        {
            if (run.WorkerThreadId == 0 || !outs.TryGetValue(run.WorkerThreadId, out var threadOuts)) continue;
            var threadIns = ins.GetValueOrDefault(run.WorkerThreadId) ?? [];
            var threadWakes = wakes.GetValueOrDefault(run.WorkerThreadId) ?? [];
            var threadLocks = locks.GetValueOrDefault(run.WorkerThreadId) ?? [];
            foreach (var (outMs, state) in threadOuts)
            {
                var inMs = FirstAfter(threadIns, outMs) ?? run.EndMs;
                var from = Math.Max(outMs, run.StartMs);
                var to = Math.Min(inMs, run.EndMs);
                if (to <= from) continue;
                if (state is 'R') { Add(run, Preempted, to - from); continue; }
                // Woken inside the stretch: from then on it only waited for a CPU.
                var woken = FirstAfter(threadWakes, outMs) is { } w && w < inMs ? Math.Clamp(w, from, to) : to;
                if (to > woken) Add(run, Ready, to - woken);
                SplitWait(run, from, woken, state, timeline, threadLocks);
            }
        }
    }

    private static void SplitWait(RunAnalysis run, double from, double to, char state, PassTimeline timeline, List<Interval> locks)
    {
        if (to <= from) return;
        var gc = Overlap(timeline.GcPauses, from, to);
        var other = Overlap(timeline.OtherSuspensions, from, to);
        var lockMs = Overlap(locks, from, to);
        var rest = to - from;
        foreach (var (reason, ms) in new[] { (Gc, gc), (Suspension, other), (Lock, lockMs) })
        {
            var taken = Math.Min(ms, rest);
            if (taken > 0) Add(run, reason, taken);
            rest -= taken;
        }
        if (rest > 0) Add(run, state == 'D' ? Uninterruptible : Waiting, rest);
    }

    private static double Overlap(List<Interval> intervals, double from, double to)
    {
        var total = 0.0;
        foreach (var i in intervals) total += i.Overlap(from, to);
        return total;
    }

    private static double? FirstAfter(double[] sorted, double t)
    {
        var i = Array.BinarySearch(sorted, t);
        i = i < 0 ? ~i : i + 1;
        return i < sorted.Length ? sorted[i] : null;
    }

    private static void Add(RunAnalysis run, string reason, double ms) => run.OffCpuMs[reason] = run.OffCpuMs.GetValueOrDefault(reason) + ms;
}
