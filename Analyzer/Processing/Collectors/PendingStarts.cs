using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Processing.Collectors;

/// <summary>
/// Start/stop event pairs per thread (a lock wait, a method's JIT): a stop closes its thread's last start; a thread has
/// one start open at a time, so a start whose stop was lost is replaced by the next. The pair belongs to a run when its
/// start fell in the run (the pass's RunOf) and that run is still the open one at the stop, started no later than the
/// pair: a wait that ends after the window is the run's whole, a start from before a later window is not that window's.
/// </summary>
internal sealed class PendingStarts<TSite>
{
    private readonly Dictionary<int, (double Ms, TSite Site, bool InRun)> _byThread = [];

    public void Start(int threadId, double ms, TSite site, bool inRun) => _byThread[threadId] = (ms, site, inRun);

    /// <summary>
    /// False when the thread had no start (lost, or before the trace began), or one that <paramref name="matches"/>
    /// says is not this stop's (a MethodLoad of another method than the one being jitted): that start stays open.
    /// </summary>
    public bool TryStop(int threadId, RunDraft? open, out double startMs, out TSite site, out RunDraft? run, Func<TSite, bool>? matches = null)
    {
        run = null;
        if (!_byThread.TryGetValue(threadId, out var start) || (matches is not null && !matches(start.Site)))
        {
            (startMs, site) = (0, default!);
            return false;
        }
        _byThread.Remove(threadId);
        (startMs, site) = (start.Ms, start.Site);
        if (start.InRun && open is not null && start.Ms >= open.StartMs) run = open;
        return true;
    }
}
