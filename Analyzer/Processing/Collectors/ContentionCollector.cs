using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Processing.Collectors;

/// <summary>
/// Lock waits (ContentionStart/Stop pairs per thread) by the code that wanted the lock, charged to the run
/// (<see cref="PendingStarts{TSite}"/> says when) and the thread.
/// </summary>
internal sealed class ContentionCollector
{
    private readonly PendingStarts<CodeSite> _waits = new();

    public bool Seen { get; private set; }

    /// <summary>The runs' lock waits by thread, in stop order: the kernel session calls a worker's time off the CPU inside one "lock".</summary>
    public List<(int ThreadId, Interval Wait)> RunWaits { get; } = [];

    public void Start(int threadId, double ms, CodeSite site, bool inRun)
    {
        Seen = true;
        _waits.Start(threadId, ms, site, inRun);
    }

    /// <summary>Where each wait goes as well, with the code that wanted the lock; null: the counts only.</summary>
    public TraceMarksDraft? Marks { get; set; }

    public void Stop(int threadId, double ms, RunDraft? open, ThreadDraft? thread)
    {
        if (!_waits.TryStop(threadId, open, out var start, out var site, out var run)) return;
        Marks?.Waited(new SpanMark(threadId, start, ms, site.Name));
        thread?.Counters.CountContention(site, ms - start);
        if (run is null) return;
        RunWaits.Add((threadId, new Interval(start, ms)));
        run.Counters.CountContention(site, ms - start);
    }

    /// <summary>The first resolved frame outside System.Threading (Monitor.Enter, Lock, ...) is the code that wanted the lock.</summary>
    public static StackFrame TakerOf(IEnumerable<StackFrame> framesLeafFirst)
    {
        foreach (var f in framesLeafFirst)
            if (f.Method != StackFrame.Unresolved && !f.Method.StartsWith("System.Threading.", StringComparison.Ordinal))
                return f;
        return CodeSite.UnknownFrame;
    }
}
