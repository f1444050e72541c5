using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Processing.Collectors;

/// <summary>
/// JIT time per method compiled (MethodJittingStarted to the MethodLoad of the same method on the same thread,
/// JitInfo.GetCompilationTime's span), charged to the run (<see cref="PendingStarts{TSite}"/> says when) and the thread.
/// The one place JIT events are paired: the span it returns is also what RuntimeWork explains native samples with.
/// A MethodLoad without its start (precompiled code, a start before the trace) counts nothing; the JIT does not
/// compile another method from inside one, so a second start on a thread replaces an abandoned one.
/// </summary>
internal sealed class JitCollector
{
    private readonly PendingStarts<long> _jitting = new();

    public bool Seen { get; private set; }

    public void Start(int threadId, long methodId, double ms, bool inRun)
    {
        Seen = true;
        _jitting.Start(threadId, ms, methodId, inRun);
    }

    /// <summary>The compilation's span, or null when this load closes no start of its method on the thread.</summary>
    public Interval? Loaded(int threadId, long methodId, double ms, RunDraft? open, ThreadDraft? thread)
    {
        if (!_jitting.TryStop(threadId, open, out var start, out _, out var run, id => id == methodId)) return null;
        thread?.Counters.CountJit(ms - start);
        run?.Counters.CountJit(ms - start);
        return new Interval(start, ms);
    }
}
