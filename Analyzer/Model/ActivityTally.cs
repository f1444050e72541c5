namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>The counting behind <see cref="ActivityCounters"/>, while a run or thread is a draft.</summary>
internal sealed class ActivityTally
{
    // Made at the first count: most runs and threads throw nothing and wait for no lock.
    private Dictionary<string, long>? _allocatedBytesByType;
    private Dictionary<ExceptionSite, int>? _exceptionsBySite;
    private Dictionary<CodeSite, double>? _contentionMsBySite;
    private long _allocatedBytes;
    private int _allocationTicks;
    private int _exceptions;
    private double _contentionMs;
    private int _contentions;
    private double _jitMs;
    private int _jitMethods;

    /// <summary>
    /// Keep each site's stack tag: a thread's whole-trace tables say which component threw or waited. A run's sites
    /// leave it out (its frames are its serializer's), so one frame is one entry whatever stacks reached it.
    /// </summary>
    public bool SitesByTag { get; init; }

    /// <summary>Anything counted (a thread with nothing else is not listed).</summary>
    public bool Any => _allocatedBytes > 0 || _exceptions > 0 || _contentions > 0 || _jitMethods > 0;

    public void CountAllocation(long bytes, string type)
    {
        _allocatedBytes += bytes;
        _allocationTicks++;
        _allocatedBytesByType ??= new(StringComparer.Ordinal);
        _allocatedBytesByType[type] = _allocatedBytesByType.GetValueOrDefault(type) + bytes;
    }

    public void CountException(ExceptionSite site, int count = 1)
    {
        if (!SitesByTag) site = site.WithoutTag();
        _exceptions += count;
        _exceptionsBySite ??= [];
        _exceptionsBySite[site] = _exceptionsBySite.GetValueOrDefault(site) + count;
    }

    public void CountContention(CodeSite site, double ms)
    {
        if (!SitesByTag) site = site.WithoutTag();
        _contentionMs += ms;
        _contentions++;
        _contentionMsBySite ??= [];
        _contentionMsBySite[site] = _contentionMsBySite.GetValueOrDefault(site) + ms;
    }

    public void CountJit(double ms, int methods = 1)
    {
        _jitMs += ms;
        _jitMethods += methods;
    }

    /// <summary>The counts as the model shows them; the tables are handed over (the draft is done).</summary>
    public ActivityCounters Freeze() => new()
    {
        AllocatedBytes = _allocatedBytes, AllocationTicks = _allocationTicks, AllocatedBytesByType = _allocatedBytesByType ?? ActivityCounters.None.AllocatedBytesByType,
        Exceptions = _exceptions, ExceptionsBySite = _exceptionsBySite ?? ActivityCounters.None.ExceptionsBySite,
        ContentionMs = _contentionMs, Contentions = _contentions, ContentionMsBySite = _contentionMsBySite ?? ActivityCounters.None.ContentionMsBySite,
        JitMs = _jitMs, JitMethods = _jitMethods,
    };
}
