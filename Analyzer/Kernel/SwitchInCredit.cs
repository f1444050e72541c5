namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// When a thread's CPU clock starts at a switch-in: at the scheduler's pick, before perf's IN record. The kernel
/// charges the switch itself to the incoming thread (the `sched_switch` tracepoint, perf's stack of it, the
/// hand-over), and perf's IN record comes only after it. A switch-in whose pick perf recorded (a `sched_switch`
/// naming the thread as next: the outgoing thread is one of the process's) is credited from there, or from the
/// outgoing thread's OUT record when that comes between: on-CPU time ends there (<see cref="SwitchCpuTime"/>), and
/// one CPU is never counted twice. A switch-in from another process's thread has no tracepoint and keeps its time.
/// </summary>
/// <remarks>
/// Measured on a `--threads 64` recording (2 loaded cores): a median 20.3 µs from the tracepoint to the IN record
/// (p90 25 µs, max 100 µs) over 15,044 of 16,982 switch-ins, 4.3 µs from the tracepoint to the outgoing OUT record
/// (docs/analyzer.md, "Concurrent runs"). Fed in record order, as perf writes them; state is one entry per thread
/// whose pick awaits its IN record.
/// </remarks>
internal sealed class SwitchInCredit
{
    /// <summary>A pick further back than this is not this switch-in's (an IN record lost): no credit.</summary>
    public const long MaxCreditNs = 1_000_000;

    private readonly Dictionary<int, (long Ns, int Prev)> _picked = [];
    private readonly Dictionary<int, int> _handingOver = [];

    /// <summary>A `sched_switch` from <paramref name="prev"/> to <paramref name="next"/>.</summary>
    public void Picked(long ns, int prev, int next)
    {
        _picked.Remove(prev); // switching out: whatever pick of it is pending was not followed by its IN record
        if (next <= 0) return; // the idle task
        _picked[next] = (ns, prev);
        _handingOver[prev] = next;
    }

    /// <summary>The OUT record of a thread: the CPU is the next thread's from here.</summary>
    public void SwitchedOut(long ns, int thread)
    {
        if (_handingOver.Remove(thread, out var next) && _picked.TryGetValue(next, out var p) && p.Prev == thread && ns >= p.Ns)
            _picked[next] = (ns, thread);
    }

    /// <summary>The time the thread's CPU clock started for the IN record at <paramref name="ns"/>: its pick, or the record's own time.</summary>
    public long SwitchedIn(long ns, int thread) =>
        _picked.Remove(thread, out var p) && p.Ns <= ns && ns - p.Ns <= MaxCreditNs ? p.Ns : ns;
}
