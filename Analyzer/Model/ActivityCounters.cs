namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// What the runtime's events counted for one run or one thread: allocation ticks, exceptions, lock waits and JIT.
/// One type for both, counted only by the collectors (Processing/Collectors) into an <see cref="ActivityTally"/>, one
/// call per event for the run and its thread alike, so the two cannot count differently. Immutable.
/// </summary>
public sealed record ActivityCounters
{
    internal ActivityCounters() { }

    /// <summary>Bytes the allocation ticks stand for (about one tick per 100 KB allocated).</summary>
    public long AllocatedBytes { get; init; }
    public int AllocationTicks { get; init; }
    /// <summary>Allocation-tick bytes by the type being allocated when the tick fired ("?" when the event had none).</summary>
    public IReadOnlyDictionary<string, long> AllocatedBytesByType { get; init; } = new Dictionary<string, long>();

    public int Exceptions { get; init; }
    /// <summary>Exceptions by type and throwing frame, in the order first thrown.</summary>
    public IReadOnlyDictionary<ExceptionSite, int> ExceptionsBySite { get; init; } = new Dictionary<ExceptionSite, int>();

    public double ContentionMs { get; init; }
    public int Contentions { get; init; }
    /// <summary>Lock wait ms by the code that wanted the lock (the first frame outside System.Threading), in the order first seen.</summary>
    public IReadOnlyDictionary<CodeSite, double> ContentionMsBySite { get; init; } = new Dictionary<CodeSite, double>();

    public double JitMs { get; init; }
    public int JitMethods { get; init; }

    /// <summary>Anything counted (a thread with nothing else is not listed).</summary>
    public bool Any => AllocatedBytes > 0 || Exceptions > 0 || Contentions > 0 || JitMethods > 0;
}

/// <summary>The counting behind <see cref="ActivityCounters"/>, while a run or thread is a draft.</summary>
internal sealed class ActivityTally
{
    private readonly Dictionary<string, long> _allocatedBytesByType = new(StringComparer.Ordinal);
    private readonly Dictionary<ExceptionSite, int> _exceptionsBySite = [];
    private readonly Dictionary<CodeSite, double> _contentionMsBySite = [];
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

    public bool Any => _allocatedBytes > 0 || _exceptions > 0 || _contentions > 0 || _jitMethods > 0;

    public void CountAllocation(long bytes, string type)
    {
        _allocatedBytes += bytes;
        _allocationTicks++;
        _allocatedBytesByType[type] = _allocatedBytesByType.GetValueOrDefault(type) + bytes;
    }

    public void CountException(ExceptionSite site, int count = 1)
    {
        if (!SitesByTag) site = site.WithoutTag();
        _exceptions += count;
        _exceptionsBySite[site] = _exceptionsBySite.GetValueOrDefault(site) + count;
    }

    public void CountContention(CodeSite site, double ms)
    {
        if (!SitesByTag) site = site.WithoutTag();
        _contentionMs += ms;
        _contentions++;
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
        AllocatedBytes = _allocatedBytes, AllocationTicks = _allocationTicks, AllocatedBytesByType = _allocatedBytesByType,
        Exceptions = _exceptions, ExceptionsBySite = _exceptionsBySite,
        ContentionMs = _contentionMs, Contentions = _contentions, ContentionMsBySite = _contentionMsBySite,
        JitMs = _jitMs, JitMethods = _jitMethods,
    };
}
