using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Processing.Collectors;

/// <summary>
/// JIT time per method compiled (MethodJittingStarted to its MethodLoad on the same thread), charged to the run
/// (<see cref="PendingStarts{TSite}"/> says when) and the thread. A MethodLoad without a start (precompiled code, a
/// start before the trace) counts nothing.
/// </summary>
internal sealed class JitCollector
{
    private readonly PendingStarts<ValueTuple> _jitting = new();

    public bool Seen { get; private set; }

    public void Start(int threadId, double ms, bool inRun)
    {
        Seen = true;
        _jitting.Start(threadId, ms, default, inRun);
    }

    public void Loaded(int threadId, double ms, RunAnalysis? open, ThreadProfile? thread)
    {
        if (!_jitting.TryStop(threadId, open, out var start, out _, out var run)) return;
        thread?.Counters.CountJit(ms - start);
        run?.Counters.CountJit(ms - start);
    }
}
