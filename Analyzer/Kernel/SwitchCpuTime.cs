
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// A thread's on-CPU time from its context switches (perf's switch-in and switch-out records): exact where samples
/// are counted in whole periods, and where the sampling timer can fire late on a loaded virtual machine and lose
/// periods (measured: a run's samples 4-17% short of the thread CPU clock in a few runs out of a hundred, never
/// with switches). This is WPA's "CPU Usage (Precise)" next to "(Sampled)": the run's CPU is the precise figure, and
/// the samples say how it splits between tags.
/// </summary>
/// <remarks>
/// Both edges come from the same perf hook pair: PERF_RECORD_SWITCH IN and OUT. The sched_switch tracepoint fires
/// before the switch, perf's IN record after it, so a stretch from IN to the tracepoint misses the hand-over's cost
/// at every switch-in: measured with both cores busy (60 runs), the thread CPU clock less the on-CPU time grew by
/// 15.6 µs per switch-in (0.5-5.4% low under load), and by 0.2 µs with the OUT record. Recordings without OUT
/// records (none of esp's) fall back to the tracepoint.
/// </remarks>
internal sealed class SwitchCpuTime
{
    private readonly Dictionary<int, (double Ms, bool In)[]> _byThread;

    public SwitchCpuTime(KernelTrace kernel, KernelClock clock)
    {
        // Per thread in time order; at equal times a switch-in before a switch-out, each kind in its record order
        // (a stable sort of the ins, then the outs). Hundreds of thousands of records: arrays, not LINQ.
        var byThread = new Dictionary<int, List<(double Ms, bool In, int Order)>>();
        var order = 0;
        foreach (var (timeNs, threadId) in kernel.SwitchIns) Add(threadId, clock.ToRelativeMs(timeNs), true);
        if (kernel.SwitchOutRecords.Count > 0)
            foreach (var (timeNs, threadId) in kernel.SwitchOutRecords) Add(threadId, clock.ToRelativeMs(timeNs), false);
        else
            foreach (var s in kernel.SwitchOuts) Add(s.ThreadId, clock.ToRelativeMs(s.TimeNs), false);
        _byThread = new Dictionary<int, (double Ms, bool In)[]>(byThread.Count);
        foreach (var (thread, list) in byThread)
        {
            list.Sort(static (a, b) => a.Ms != b.Ms ? a.Ms.CompareTo(b.Ms) : a.Order.CompareTo(b.Order));
            var events = new (double Ms, bool In)[list.Count];
            for (var i = 0; i < events.Length; i++) events[i] = (list[i].Ms, list[i].In);
            _byThread[thread] = events;
        }

        void Add(int threadId, double ms, bool isIn)
        {
            if (!byThread.TryGetValue(threadId, out var list)) byThread[threadId] = list = [];
            list.Add((ms, isIn, order++));
        }
    }

    public bool Knows(int threadId) => _byThread.ContainsKey(threadId);

    /// <summary>Milliseconds the thread was on a CPU between from and to.</summary>
    public double OnCpuMs(int threadId, double fromMs, double toMs)
    {
        if (!_byThread.TryGetValue(threadId, out var events) || toMs <= fromMs) return 0;
        var i = LastAtOrBefore(events, fromMs);
        // Before its first switch a thread that gets switched out first was running; one that gets switched in was not.
        var running = i >= 0 ? events[i].In : events.Length > 0 && !events[0].In;
        var since = fromMs;
        var total = 0.0;
        for (var k = i + 1; k < events.Length && events[k].Ms < toMs; k++)
        {
            if (running && !events[k].In) total += events[k].Ms - since;
            if (!running && events[k].In) since = events[k].Ms;
            running = events[k].In;
        }
        if (running) total += toMs - since;
        return total;
    }

    private static int LastAtOrBefore((double Ms, bool In)[] events, double t)
    {
        int lo = 0, hi = events.Length - 1, found = -1;
        while (lo <= hi)
        {
            var mid = (lo + hi) >>> 1;
            if (events[mid].Ms <= t) { found = mid; lo = mid + 1; }
            else hi = mid - 1;
        }
        return found;
    }

    /// <summary>
    /// A thread's CPU over the whole trace, on its precise figure. A thread whose first record is a switch-out was
    /// running before it, from a period before its first sample; one still running at its last record, until its
    /// last sample. Null for a thread without switches.
    /// </summary>
    public double? ThreadOnCpuMs(int threadId, double firstSampleMs, double lastSampleMs, double periodMs)
    {
        if (!_byThread.TryGetValue(threadId, out var events)) return null;
        return OnCpuMs(threadId, Math.Min(events[0].Ms, firstSampleMs - periodMs), Math.Max(events[^1].Ms, lastSampleMs));
    }
}
