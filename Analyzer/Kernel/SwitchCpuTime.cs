
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
/// <para>
/// Memory: the windows are answered together, in one walk over the records in time order (<see cref="OnCpuMs(IReadOnlyList{Window})"/>),
/// so nothing is copied per record: a copy of each thread's switches was a megabyte at 114,000 samples. Only records
/// out of time order (a damaged file; perf writes them in order) are copied, to be put in order first.
/// </para>
/// </remarks>
internal sealed class SwitchCpuTime
{
    /// <summary>A question: the thread's on-CPU time from one time to another (the trace's milliseconds).</summary>
    public readonly record struct Window(int ThreadId, double FromMs, double ToMs);

    /// <summary>A switch on the trace's clock; <see cref="Order"/> breaks ties as the records came (switch-ins first).</summary>
    private readonly record struct Switch(double Ms, int ThreadId, bool In, int Order);

    private readonly KernelTrace _kernel;
    private readonly KernelClock _clock;
    /// <summary>Per thread: its first switch (when, and whether a switch-in) and the time of its last.</summary>
    private readonly Dictionary<int, (double FirstMs, bool FirstIn, double LastMs)> _threads = [];
    /// <summary>The switches put in order, only when the records were not (null: walk the records as they are).</summary>
    private readonly List<Switch>? _sorted;

    public SwitchCpuTime(KernelTrace kernel, KernelClock clock)
    {
        _kernel = kernel;
        _clock = clock;
        if (!InOrder(Ins()) || !InOrder(Outs())) _sorted = Sorted();
        foreach (var s in Switches()) Note(s);

        void Note(Switch s)
        {
            // Switches come in time order with ties as the records came, so the first seen is the first.
            if (_threads.TryGetValue(s.ThreadId, out var t)) _threads[s.ThreadId] = t with { LastMs = Math.Max(t.LastMs, s.Ms) };
            else _threads[s.ThreadId] = (s.Ms, s.In, s.Ms);
        }
    }

    public bool Knows(int threadId) => _threads.ContainsKey(threadId);

    /// <summary>Milliseconds the thread was on a CPU between from and to.</summary>
    public double OnCpuMs(int threadId, double fromMs, double toMs) => OnCpuMs([new Window(threadId, fromMs, toMs)])[0];

    /// <summary>
    /// Each window's on-CPU milliseconds, in one walk over the switches. Per window the same arithmetic as walking its
    /// thread's switches alone: the state at its start is that of the thread's last switch at or before it (before its
    /// first switch, running if that one is a switch-out), then each stretch inside it is added in turn.
    /// </summary>
    public double[] OnCpuMs(IReadOnlyList<Window> windows)
    {
        var totals = new double[windows.Count];
        var starts = new PriorityQueue<int, double>();
        for (var w = 0; w < windows.Count; w++)
            if (windows[w].ToMs > windows[w].FromMs && Knows(windows[w].ThreadId)) starts.Enqueue(w, windows[w].FromMs);
        var ends = new PriorityQueue<int, double>();
        var open = new Dictionary<int, List<int>>(); // per thread, the windows open now
        var state = new (bool Running, double Since)[windows.Count];
        var lastIn = new Dictionary<int, bool>(); // per thread, whether its last switch so far was a switch-in
        foreach (var s in Switches())
        {
            Advance(s.Ms);
            if (open.TryGetValue(s.ThreadId, out var here))
                foreach (var w in here)
                {
                    ref var st = ref state[w];
                    if (st.Running && !s.In) totals[w] += s.Ms - st.Since;
                    if (!st.Running && s.In) st.Since = s.Ms;
                    st.Running = s.In;
                }
            lastIn[s.ThreadId] = s.In;
        }
        Advance(double.PositiveInfinity);
        return totals;

        // Opens the windows that start before a switch at this time, then closes those that end at or before it.
        void Advance(double ms)
        {
            while (starts.TryPeek(out var w, out var from) && from < ms)
            {
                starts.Dequeue();
                var thread = windows[w].ThreadId;
                state[w] = (lastIn.TryGetValue(thread, out var isIn) ? isIn : !_threads[thread].FirstIn, from);
                if (!open.TryGetValue(thread, out var list)) open[thread] = list = [];
                list.Add(w);
                ends.Enqueue(w, windows[w].ToMs);
            }
            while (ends.TryPeek(out var w, out var to) && to <= ms)
            {
                ends.Dequeue();
                if (state[w].Running) totals[w] += to - state[w].Since;
                open[windows[w].ThreadId].Remove(w);
            }
        }
    }

    /// <summary>
    /// A thread's whole trace as a window, on its precise figure: a thread whose first record is a switch-out was
    /// running before it, from a period before its first sample; one still running at its last record, until its
    /// last sample. Null for a thread without switches.
    /// </summary>
    public Window? WholeThread(int threadId, double firstSampleMs, double lastSampleMs, double periodMs) =>
        _threads.TryGetValue(threadId, out var t)
            ? new Window(threadId, Math.Min(t.FirstMs, firstSampleMs - periodMs), Math.Max(t.LastMs, lastSampleMs))
            : null;

    /// <summary>A thread's CPU over the whole trace (<see cref="WholeThread"/>); null for a thread without switches.</summary>
    public double? ThreadOnCpuMs(int threadId, double firstSampleMs, double lastSampleMs, double periodMs) =>
        WholeThread(threadId, firstSampleMs, lastSampleMs, periodMs) is { } w ? OnCpuMs([w])[0] : null;

    /// <summary>
    /// Every switch-in and switch-out (perf's OUT records, or the tracepoints without them) in time order, at equal
    /// times a switch-in first and each kind in its record order: a merge of the two lists, which perf writes in
    /// time order (put in order first, <see cref="_sorted"/>, when they are not).
    /// </summary>
    private IEnumerable<Switch> Switches() => _sorted ?? Merge(Ins(), Outs());

    private IEnumerable<(long TimeNs, int ThreadId)> Ins() => _kernel.SwitchIns;

    private IEnumerable<(long TimeNs, int ThreadId)> Outs() =>
        _kernel.SwitchOutRecords.Count > 0 ? _kernel.SwitchOutRecords : _kernel.SwitchOuts.Select(s => (s.TimeNs, s.ThreadId));

    /// <summary>All switches sorted by time, then by kind (switch-ins first) and record order: a damaged file's.</summary>
    private List<Switch> Sorted()
    {
        var all = new List<Switch>();
        var order = 0;
        foreach (var (ns, thread) in Ins()) all.Add(new Switch(_clock.ToRelativeMs(ns), thread, true, order++));
        foreach (var (ns, thread) in Outs()) all.Add(new Switch(_clock.ToRelativeMs(ns), thread, false, order++));
        all.Sort(static (a, b) => a.Ms != b.Ms ? a.Ms.CompareTo(b.Ms) : a.Order.CompareTo(b.Order));
        return all;
    }

    private IEnumerable<Switch> Merge(IEnumerable<(long TimeNs, int ThreadId)> ins, IEnumerable<(long TimeNs, int ThreadId)> outs)
    {
        using var i = ins.GetEnumerator();
        using var o = outs.GetEnumerator();
        var hasIn = i.MoveNext();
        var hasOut = o.MoveNext();
        while (hasIn || hasOut)
        {
            var inMs = hasIn ? _clock.ToRelativeMs(i.Current.TimeNs) : double.PositiveInfinity;
            var outMs = hasOut ? _clock.ToRelativeMs(o.Current.TimeNs) : double.PositiveInfinity;
            if (hasIn && inMs <= outMs)
            {
                yield return new Switch(inMs, i.Current.ThreadId, true, 0);
                hasIn = i.MoveNext();
            }
            else
            {
                yield return new Switch(outMs, o.Current.ThreadId, false, 0);
                hasOut = o.MoveNext();
            }
        }
    }

    /// <summary>In time order on the trace's clock (what the walk compares), not only in nanoseconds.</summary>
    private bool InOrder(IEnumerable<(long TimeNs, int ThreadId)> records)
    {
        var last = double.NegativeInfinity;
        foreach (var (ns, _) in records)
        {
            var ms = _clock.ToRelativeMs(ns);
            if (ms < last) return false;
            last = ms;
        }
        return true;
    }
}
