namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// What the runtime's events count for one run or one thread: allocation ticks, exceptions, lock waits and JIT. One
/// type for both, filled only by the collectors (Processing/Collectors), one call per event for the run and its
/// thread alike, so the two cannot count differently.
/// </summary>
public sealed class ActivityCounters
{
    private readonly Dictionary<string, long> _allocatedBytesByType = new(StringComparer.Ordinal);
    private readonly Dictionary<ExceptionSite, int> _exceptionsBySite = [];
    private readonly Dictionary<CodeSite, double> _contentionMsBySite = [];

    /// <summary>
    /// Keep each site's stack tag: a thread's whole-trace tables say which component threw or waited. A run's sites
    /// leave it out (its frames are its serializer's), so one frame is one entry whatever stacks reached it.
    /// </summary>
    public bool SitesByTag { get; init; }

    /// <summary>Bytes the allocation ticks stand for (about one tick per 100 KB allocated).</summary>
    public long AllocatedBytes { get; private set; }
    public int AllocationTicks { get; private set; }
    /// <summary>Allocation-tick bytes by the type being allocated when the tick fired ("?" when the event had none).</summary>
    public IReadOnlyDictionary<string, long> AllocatedBytesByType => _allocatedBytesByType;

    public int Exceptions { get; private set; }
    /// <summary>Exceptions by type and throwing frame, in the order first thrown.</summary>
    public IReadOnlyDictionary<ExceptionSite, int> ExceptionsBySite => _exceptionsBySite;

    public double ContentionMs { get; private set; }
    public int Contentions { get; private set; }
    /// <summary>Lock wait ms by the code that wanted the lock (the first frame outside System.Threading), in the order first seen.</summary>
    public IReadOnlyDictionary<CodeSite, double> ContentionMsBySite => _contentionMsBySite;

    public double JitMs { get; private set; }
    public int JitMethods { get; private set; }

    /// <summary>Anything counted (a thread with nothing else is not listed).</summary>
    public bool Any => AllocatedBytes > 0 || Exceptions > 0 || Contentions > 0 || JitMethods > 0;

    internal void CountAllocation(long bytes, string type)
    {
        AllocatedBytes += bytes;
        AllocationTicks++;
        _allocatedBytesByType[type] = _allocatedBytesByType.GetValueOrDefault(type) + bytes;
    }

    internal void CountException(ExceptionSite site, int count = 1)
    {
        if (!SitesByTag) site = site.WithoutTag();
        Exceptions += count;
        _exceptionsBySite[site] = _exceptionsBySite.GetValueOrDefault(site) + count;
    }

    internal void CountContention(CodeSite site, double ms)
    {
        if (!SitesByTag) site = site.WithoutTag();
        ContentionMs += ms;
        Contentions++;
        _contentionMsBySite[site] = _contentionMsBySite.GetValueOrDefault(site) + ms;
    }

    internal void CountJit(double ms, int methods = 1)
    {
        JitMs += ms;
        JitMethods += methods;
    }
}
