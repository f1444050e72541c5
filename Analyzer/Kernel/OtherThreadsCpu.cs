using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// What each run costs the rest of the process: the on-CPU time, inside the run's window, of the process's threads
/// that are not the run's own (its worker and --threads crew), by role (<see cref="ThreadRole"/>: background GC,
/// tiering's JIT, the finalizer, the tracer's threads, the rest). The workers' CPU is the run's CPU column; this is
/// the work the run causes or meets beside it, which the process's CPU clock counts and the column does not.
/// </summary>
/// <remarks>
/// Every thread's on-CPU stretches come from the walk of the switches that gives the runs' CPU
/// (<see cref="SwitchCpuTime.Walk.OnCpu"/>): the same edges, one walk for both. Each stretch is clipped to the windows
/// it overlaps (runs sorted by start, a running maximum of their ends), and summed per run and thread; a thread's role
/// comes from its name once every chunk is read (perf's comm, last one wins). Nothing is kept per record. A recording
/// without switch-ins leaves the figure unknown (<see cref="RunDraft.OtherThreadsKnown"/> false), as does a trace
/// without the kernel session.
/// </remarks>
internal sealed class OtherThreadsCpu
{
    private readonly RunDraft[] _runs;
    private readonly double[] _starts;
    /// <summary>Per run (in start order), the largest end of it and every run before it.</summary>
    private readonly double[] _maxEnd;
    /// <summary>Per run, each other thread's on-CPU ms inside its window.</summary>
    private readonly Dictionary<int, double>[] _byThread;
    private readonly SwitchCpuTime.Walk _walk;
    private readonly KernelClock _clock;
    /// <summary>Per thread, its last record of any kind (perf ns): where a thread still on the CPU at its last switch-in stopped.</summary>
    private readonly Dictionary<int, long> _lastNs = [];
    private IReadOnlyDictionary<int, string> _names = new Dictionary<int, string>();
    private int _processId;

    /// <param name="walk">The runs' CPU walk, fed each chunk before this stage by its owner (a second walk of the same
    /// switches doubled the walks' share of the charge's main thread).</param>
    public OtherThreadsCpu(IEnumerable<RunDraft> runs, KernelClock clock, SwitchCpuTime.Walk walk)
    {
        _runs = [.. runs.Where(r => r.EndMs > r.StartMs).OrderBy(r => r.StartMs)];
        _starts = [.. _runs.Select(r => r.StartMs)];
        _maxEnd = new double[_runs.Length];
        for (var i = 0; i < _runs.Length; i++) _maxEnd[i] = Math.Max(i == 0 ? double.NegativeInfinity : _maxEnd[i - 1], _runs[i].EndMs);
        _byThread = [.. _runs.Select(_ => new Dictionary<int, double>())];
        _clock = clock;
        _walk = walk;
        _walk.OnCpu = Stretch;
    }

    /// <summary>The next chunk's records, after the walk has had its switches.</summary>
    public void Add(KernelTrace chunk)
    {
        foreach (var s in chunk.Samples) Seen(s.ThreadId, s.TimeNs);
        foreach (var (ns, thread) in chunk.SwitchIns) Seen(thread, ns);
        foreach (var (ns, thread) in chunk.SwitchOutRecords) Seen(thread, ns);
        foreach (var s in chunk.SwitchOuts) Seen(s.ThreadId, s.TimeNs);
        foreach (var w in chunk.Wakings) Seen(w.WakerThreadId, w.TimeNs);
        _names = chunk.ThreadNames;
        if (chunk.ProcessId > 0) _processId = chunk.ProcessId;
    }

    /// <summary>Every chunk is in: each run's other threads by role, or unknown without switch-ins.</summary>
    public void Finish()
    {
        _walk.Finish();
        if (!_walk.SawSwitchIns) return;
        for (var r = 0; r < _runs.Length; r++)
        {
            var run = _runs[r];
            run.OtherThreadsKnown = true;
            run.OtherThreadsTable.Clear();
            foreach (var (thread, ms) in _byThread[r])
            {
                var role = RoleOf(_names.GetValueOrDefault(thread), Unnamed(thread));
                run.OtherThreadsTable[role] = run.OtherThreadsTable.GetValueOrDefault(role) + ms;
            }
            _byThread[r].Clear();
        }
    }

    /// <summary>
    /// A thread that never named itself: it kept the process's name (its main thread's comm), and is not the main thread.
    /// The runtime names its own helper threads (".NET ..."), all but EventPipe's session and sampler threads
    /// (ep_rt_thread_create in the runtime: measured, the sampler's stacks sleep and signal, the session's write the socket).
    /// </summary>
    private bool Unnamed(int thread) =>
        _processId > 0 && thread != _processId && _names.GetValueOrDefault(thread) is { } name && name == _names.GetValueOrDefault(_processId);

    /// <summary>
    /// A thread's role from the name the runtime gave it (perf keeps 15 characters): ".NET BGC" and ".NET Server GC"
    /// are the GC's, ".NET Tiered Com" tiering's, ".NET Finalizer"; the diagnostics server (".NET EventPipe") and the
    /// threads that never named themselves (<paramref name="unnamed"/>: EventPipe's session and sampler) the tracer's.
    /// </summary>
    public static ThreadRole RoleOf(string? name, bool unnamed = false) => name switch
    {
        _ when unnamed => ThreadRole.Tracer,
        null => ThreadRole.Other,
        _ when name.StartsWith(".NET BGC", StringComparison.Ordinal) || name.StartsWith(".NET Server GC", StringComparison.Ordinal) || name.StartsWith(".NET GC", StringComparison.Ordinal) => ThreadRole.Gc,
        _ when name.StartsWith(".NET Tiered Com", StringComparison.Ordinal) => ThreadRole.Jit,
        _ when name.StartsWith(".NET Finalizer", StringComparison.Ordinal) => ThreadRole.Finalizer,
        _ when name.StartsWith(".NET EventPipe", StringComparison.Ordinal) => ThreadRole.Tracer,
        _ => ThreadRole.Other,
    };

    private void Seen(int thread, long ns)
    {
        ref var last = ref System.Runtime.InteropServices.CollectionsMarshal.GetValueRefOrAddDefault(_lastNs, thread, out var existed);
        if (!existed || ns > last) last = ns;
    }

    /// <summary>One thread's stretch on the CPU, clipped to each run window it overlaps, unless the thread is that run's.</summary>
    private void Stretch(int thread, double from, double to)
    {
        // Still on the CPU when the records end: a thread that exited (its last switch-out is never recorded: perf's
        // events close before it) or one running when perf stopped. It ran until its last record.
        if (double.IsPositiveInfinity(to)) to = _lastNs.TryGetValue(thread, out var last) ? _clock.ToRelativeMs(last) : from;
        // The last run starting before the stretch ends; back from it while some run still ends after the stretch starts.
        var i = Array.BinarySearch(_starts, to);
        i = i >= 0 ? i - 1 : ~i - 1;
        while (i >= 0 && i < _runs.Length && _maxEnd[i] > from)
        {
            var run = _runs[i];
            var ms = Math.Min(to, run.EndMs) - Math.Max(from, run.StartMs);
            if (ms > 0 && !run.IsRunThread(thread)) _byThread[i][thread] = _byThread[i].GetValueOrDefault(thread) + ms;
            i--;
        }
    }
}
