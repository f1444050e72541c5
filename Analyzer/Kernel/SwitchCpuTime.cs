
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
/// A switch-in starts where the thread's CPU clock did (<see cref="KernelTrace.OnCpuFrom"/>): perf's IN record,
/// credited back to the pick perf recorded before it (<see cref="SwitchInCredit"/>): the switch and perf's stack of
/// the `sched_switch` tracepoint are the incoming thread's CPU, about 20 µs a switch-in.
/// Both edges come from the same perf hook pair: PERF_RECORD_SWITCH IN and OUT. The sched_switch tracepoint fires
/// before the switch, perf's IN record after it, so a stretch from IN to the tracepoint misses the hand-over's cost
/// at every switch-in: measured with both cores busy (60 runs), the thread CPU clock less the on-CPU time grew by
/// 15.6 µs per switch-in (0.5-5.4% low under load), and by 0.2 µs with the OUT record. Recordings without OUT
/// records (none of esp's) fall back to the tracepoint.
/// <para>
/// Memory: the windows are answered together as the switches come, chunk by chunk (<see cref="Walk"/>), so nothing
/// is kept per record but a millisecond of switches held back to be walked in order (<see cref="Walk.Add"/>).
/// </para>
/// </remarks>
internal sealed class SwitchCpuTime
{
    /// <summary>A question: the thread's on-CPU time from one time to another (the trace's milliseconds).</summary>
    public readonly record struct Window(int ThreadId, double FromMs, double ToMs);

    /// <summary>A switch on the trace's clock.</summary>
    private readonly record struct Switch(double Ms, int ThreadId, bool In);

    private readonly KernelTrace _kernel;
    private readonly KernelClock _clock;

    /// <summary>The switches of a trace read whole, asked any windows afterwards.</summary>
    public SwitchCpuTime(KernelTrace kernel, KernelClock clock)
    {
        _kernel = kernel;
        _clock = clock;
    }

    public bool Knows(int threadId) => Threads().Knows(threadId);

    /// <summary>Milliseconds the thread was on a CPU between from and to.</summary>
    public double OnCpuMs(int threadId, double fromMs, double toMs) => OnCpuMs([new Window(threadId, fromMs, toMs)])[0];

    /// <summary>Each window's on-CPU milliseconds, in one walk over the switches (<see cref="Walk"/>).</summary>
    public double[] OnCpuMs(IReadOnlyList<Window> windows)
    {
        var walk = new Walk(_clock, windows);
        walk.Add(_kernel);
        return walk.Finish();
    }

    /// <summary>A thread's CPU over the whole trace (<see cref="Walk.WholeThreadMs"/>); null for a thread without switches.</summary>
    public double? ThreadOnCpuMs(int threadId, double firstSampleMs, double lastSampleMs, double periodMs) =>
        Threads().WholeThreadMs(threadId, firstSampleMs, lastSampleMs, periodMs);

    private Walk Threads()
    {
        var walk = new Walk(_clock, []);
        walk.Add(_kernel);
        walk.Finish();
        return walk;
    }

    /// <summary>
    /// The windows asked up front (the runs', known once the EventPipe pass is over), answered as the switches come,
    /// chunk by chunk in time order (<see cref="PerfScriptReader.ReadChunks"/>): per window the same arithmetic as
    /// walking its thread's switches alone. The state at a window's start is that of its thread's last switch before
    /// it (before its first switch, running if that one is a switch-out: decided when it comes), then each stretch
    /// inside it is added in turn. Each thread's whole trace is kept as a few sums (<see cref="WholeThreadMs"/>),
    /// since its window is known only once its last sample is. Nothing is kept per switch.
    /// </summary>
    internal sealed class Walk
    {
        private readonly KernelClock _clock;
        private readonly IReadOnlyList<Window> _windows;
        private readonly double[] _totals;
        private readonly PriorityQueue<int, double> _starts = new();
        private readonly PriorityQueue<int, double> _ends = new();
        private readonly Dictionary<int, List<int>> _open = []; // per thread, the windows open now
        private readonly (bool? Running, double Since)[] _state; // Running null: the thread has had no switch yet
        /// <summary>Per thread: windows that ended before its first switch, which says whether it ran through them.</summary>
        private readonly Dictionary<int, List<int>> _beforeFirst = [];
        private readonly Dictionary<int, ThreadSums> _threads = [];
        private bool? _outRecords;
        private double _lastMs = double.NegativeInfinity;
        /// <summary>Switches read but not yet walked (<see cref="Add"/>), in the walk's order.</summary>
        private List<Held> _held = [];
        private List<Held> _merged = [];
        /// <summary>The chunk's switch-ins and switch-outs, each in record order, then the chunk in order, until they join <see cref="_held"/>.</summary>
        private readonly List<Held> _ins = [];
        private readonly List<Held> _outs = [];
        private readonly List<Held> _chunk = [];
        private long _heldOrder;
        private long _latestNs = long.MinValue;
        private bool _finished;

        /// <summary>
        /// A held switch in the walk's order: by time, kind (switch-ins first) and record order. Each kind comes nearly
        /// in that order (switch-outs in time order, switch-ins credited a little back), so each is sorted by insertion
        /// and the three runs merged: a priority queue's sifts, or a sort of them all, took 2.3% of the native esp's CPU.
        /// </summary>
        private readonly record struct Held(Switch Switch, long Order)
        {
            public static bool Before(in Held a, in Held b) =>
                a.Switch.Ms < b.Switch.Ms
                || (a.Switch.Ms == b.Switch.Ms && (a.Switch.In != b.Switch.In ? a.Switch.In : a.Order < b.Order));
        }

        /// <summary>One thread's switches so far: the first, the last, and the stretches on the CPU after the first.</summary>
        private sealed class ThreadSums
        {
            public double FirstMs;
            public bool FirstIn;
            public double LastMs;
            public bool Running;
            public double Since;
            public double Sum;
        }

        public Walk(KernelClock clock, IReadOnlyList<Window> windows)
        {
            _clock = clock;
            _windows = windows;
            _totals = new double[windows.Count];
            _state = new (bool?, double)[windows.Count];
            for (var w = 0; w < windows.Count; w++)
                if (windows[w].ToMs > windows[w].FromMs) _starts.Enqueue(w, windows[w].FromMs);
        }

        /// <summary>
        /// Told each on-CPU stretch of every thread as it ends: the thread, from (-∞ for a thread whose first record
        /// is a switch-out: it ran before it) and to (+∞ for one still running when the records end, told by
        /// <see cref="Finish"/>). The same edges as the windows' (<see cref="Kernel.OtherThreadsCpu"/> reads them off the
        /// runs' walk). Set before the first chunk.
        /// </summary>
        public Action<int, double, double>? OnCpu { get; set; }

        /// <summary>Whether any switch-in was seen: without them (a recording without --switch-events) there is no precise figure.</summary>
        public bool SawSwitchIns { get; private set; }

        /// <summary>Records seen out of time order across chunks (only a damaged file has them): their windows may be off.</summary>
        public int LateRecords { get; private set; }

        public bool Knows(int threadId) => _threads.ContainsKey(threadId);

        /// <summary>
        /// The next chunk's switch-ins and switch-outs (perf's OUT records, or the tracepoints in a recording without
        /// them), walked in time order: at equal times switch-ins first, each kind in record order.
        /// </summary>
        /// <remarks>
        /// Switch-ins start where the thread's CPU clock did (<see cref="KernelTrace.OnCpuStarts"/>): credited back up
        /// to <see cref="SwitchInCredit.MaxCreditNs"/> before their IN records, so they come a little out of order,
        /// across chunks too. They wait in a queue until every record still to come is later: the walk is the same
        /// however the records are cut into chunks. The queue holds about a millisecond of switches.
        /// </remarks>
        public void Add(KernelTrace chunk)
        {
            if (chunk.SwitchIns.Count > 0) SawSwitchIns = true;
            // One edge for the whole trace: perf's OUT records where the recording has them.
            if (_outRecords is null && (chunk.SwitchOutRecords.Count > 0 || chunk.SwitchOuts.Count > 0)) _outRecords = chunk.SwitchOutRecords.Count > 0;
            var outs = _outRecords == true ? (IEnumerable<(long, int)>)chunk.SwitchOutRecords : chunk.SwitchOuts.Select(s => (s.TimeNs, s.ThreadId));
            foreach (var (ns, thread) in chunk.OnCpuStarts) Hold(ns, thread, true);
            foreach (var (ns, thread) in outs) Hold(ns, thread, false);
            // Perf writes its records in time order: a record still to come is no earlier than the latest one
            // written, less the most a switch-in is credited.
            foreach (var (ns, _) in chunk.SwitchIns) _latestNs = Math.Max(_latestNs, ns);
            foreach (var (ns, _) in outs) _latestNs = Math.Max(_latestNs, ns);
            if (_latestNs != long.MinValue) Release(_clock.ToRelativeMs(_latestNs - SwitchInCredit.MaxCreditNs));
        }

        /// <summary>Every window's on-CPU milliseconds, once every switch is in.</summary>
        public double[] Finish()
        {
            Release(double.PositiveInfinity);
            Advance(double.PositiveInfinity);
            if (OnCpu is not null && !_finished)
                foreach (var (id, t) in _threads)
                    if (t.Running) OnCpu(id, t.Since, double.PositiveInfinity);
            _finished = true;
            return _totals;
        }

        private void Hold(long ns, int thread, bool isIn)
        {
            var ms = _clock.ToRelativeMs(ns);
            (isIn ? _ins : _outs).Add(new Held(new Switch(ms, thread, isIn), _heldOrder++));
        }

        /// <summary>Walks the held switches before this time, in order.</summary>
        private void Release(double beforeMs)
        {
            if (_ins.Count + _outs.Count > 0)
            {
                SortNearlySorted(_ins);
                SortNearlySorted(_outs);
                Merge(_ins, _outs, _chunk);
                Merge(_held, _chunk, _merged);
                (_held, _merged) = (_merged, _held);
                _merged.Clear();
                _chunk.Clear();
                _ins.Clear();
                _outs.Clear();
            }
            var walked = 0;
            while (walked < _held.Count && _held[walked].Switch.Ms < beforeMs) Step(_held[walked++].Switch);
            _held.RemoveRange(0, walked);
        }

        /// <summary>By insertion: as fast as a pass over switches nearly in order. Records far out of order (a damaged file) fall back to a sort.</summary>
        private static void SortNearlySorted(List<Held> list)
        {
            var items = System.Runtime.InteropServices.CollectionsMarshal.AsSpan(list);
            var budget = 16L * items.Length;
            for (var i = 1; i < items.Length; i++)
            {
                var x = items[i];
                var j = i - 1;
                while (j >= 0 && Held.Before(x, items[j]))
                {
                    items[j + 1] = items[j];
                    j--;
                    if (--budget < 0)
                    {
                        items[j + 1] = x;
                        items.Sort(static (a, b) => Held.Before(a, b) ? -1 : Held.Before(b, a) ? 1 : 0);
                        return;
                    }
                }
                items[j + 1] = x;
            }
        }

        /// <summary>Two sorted runs into one, in order.</summary>
        private static void Merge(List<Held> a, List<Held> b, List<Held> into)
        {
            int i = 0, j = 0;
            while (i < a.Count && j < b.Count) into.Add(Held.Before(b[j], a[i]) ? b[j++] : a[i++]);
            for (; i < a.Count; i++) into.Add(a[i]);
            for (; j < b.Count; j++) into.Add(b[j]);
        }

        /// <summary>
        /// A thread's whole trace as a window, on its precise figure: a thread whose first record is a switch-out was
        /// running before it, from a period before its first sample; one still running at its last record, until its
        /// last sample. Null for a thread without switches.
        /// </summary>
        public double? WholeThreadMs(int threadId, double firstSampleMs, double lastSampleMs, double periodMs)
        {
            if (!_threads.TryGetValue(threadId, out var t)) return null;
            var from = Math.Min(t.FirstMs, firstSampleMs - periodMs);
            var to = Math.Max(t.LastMs, lastSampleMs);
            return (t.FirstIn ? 0 : t.FirstMs - from) + t.Sum + (t.Running ? to - t.Since : 0);
        }

        private void Step(Switch s)
        {
            if (s.Ms < _lastMs) LateRecords++;
            _lastMs = Math.Max(_lastMs, s.Ms);
            Advance(s.Ms);
            var first = !_threads.TryGetValue(s.ThreadId, out var thread);
            if (first)
            {
                _threads[s.ThreadId] = thread = new ThreadSums { FirstMs = s.Ms, FirstIn = s.In, LastMs = s.Ms, Running = s.In, Since = s.Ms };
                // Windows that ended before this first switch: running through them if it is a switch-out.
                if (_beforeFirst.Remove(s.ThreadId, out var ended) && !s.In)
                    foreach (var w in ended) _totals[w] += _windows[w].ToMs - _windows[w].FromMs;
                if (!s.In) OnCpu?.Invoke(s.ThreadId, double.NegativeInfinity, s.Ms);
            }
            else
            {
                if (thread!.Running && !s.In)
                {
                    thread.Sum += s.Ms - thread.Since;
                    OnCpu?.Invoke(s.ThreadId, thread.Since, s.Ms);
                }
                if (!thread.Running && s.In) thread.Since = s.Ms;
                thread.Running = s.In;
                thread.LastMs = Math.Max(thread.LastMs, s.Ms);
            }
            if (!_open.TryGetValue(s.ThreadId, out var here)) return;
            foreach (var w in here)
            {
                ref var st = ref _state[w];
                st.Running ??= !s.In; // its thread's first switch: a switch-out means it ran from the window's start
                if (st.Running == true && !s.In) _totals[w] += s.Ms - st.Since;
                if (st.Running == false && s.In) st.Since = s.Ms;
                st.Running = s.In;
            }
        }

        // Opens the windows that start before a switch at this time, then closes those that end at or before it.
        private void Advance(double ms)
        {
            while (_starts.TryPeek(out var w, out var from) && from < ms)
            {
                _starts.Dequeue();
                var thread = _windows[w].ThreadId;
                _state[w] = (_threads.TryGetValue(thread, out var t) ? t.Running : null, from);
                if (!_open.TryGetValue(thread, out var list)) _open[thread] = list = [];
                list.Add(w);
                _ends.Enqueue(w, _windows[w].ToMs);
            }
            while (_ends.TryPeek(out var w, out var to) && to <= ms)
            {
                _ends.Dequeue();
                var thread = _windows[w].ThreadId;
                if (_state[w].Running == true) _totals[w] += to - _state[w].Since;
                else if (_state[w].Running is null)
                {
                    if (!_beforeFirst.TryGetValue(thread, out var ended)) _beforeFirst[thread] = ended = [];
                    ended.Add(w);
                }
                _open[thread].Remove(w);
            }
        }
    }
}
