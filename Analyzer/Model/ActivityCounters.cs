namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// What the runtime's events counted for one run or one thread: allocation ticks, exceptions, lock waits and JIT.
/// One type for both, counted only by the collectors (Processing/Collectors) into an <see cref="ActivityTally"/>, one
/// call per event for the run and its thread alike, so the two cannot count differently. Immutable.
/// </summary>
public sealed record ActivityCounters
{
    internal ActivityCounters() { }

    /// <summary>Nothing counted: the default of a run or thread, one instance (a run's own replaces it when frozen).</summary>
    internal static readonly ActivityCounters None = new();

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
}
