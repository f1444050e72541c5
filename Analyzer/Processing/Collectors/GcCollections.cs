using EtwSerializerProfiler.Analyzer.Collections;

namespace EtwSerializerProfiler.Analyzer.Processing.Collectors;

/// <summary>
/// The garbage collections, each with its generation and start, counted as TraceEvent's GC analysis lists them: a
/// GCStart counts while the runtime is suspended (the suspension the GC runs in), once per GC number (some runtimes
/// write GCStart twice for one GC). This is all the analysis read of TraceEvent's <c>NeedLoadedDotNetRuntimes</c>,
/// whose JIT, allocation and heap statistics cost about a tenth of a cold analysis's CPU and 14 MB of its peak memory
/// (docs/analyzer.md#speed); pauses come from <see cref="Timeline.RuntimeSuspensions"/>.
/// </summary>
internal sealed class GcCollections
{
    private int? _lastNumber;

    /// <summary>The collections in time order.</summary>
    public ChunkedList<(double StartMs, int Generation)> All { get; } = [];

    /// <param name="number">The GC's number (GCStart's Count).</param>
    /// <param name="generation">The generation collected (GCStart's Depth): 0, 1 or 2.</param>
    /// <param name="suspended">Whether a runtime suspension is open: a GCStart outside one is not counted.</param>
    public void Start(double ms, int number, int generation, bool suspended)
    {
        if (!suspended || _lastNumber == number) return;
        _lastNumber = number;
        All.Add((ms, generation));
    }

    private (int Gen0, int Gen1, int Gen2)? _released;

    /// <summary>
    /// The runs have their collections (RunGcs): only the counts are kept from here on, not one entry per GC (a long
    /// trace collects tens of thousands of times, and the list was alive through the CPU charge).
    /// </summary>
    public void Release()
    {
        _released = Counts();
        All.Clear();
        All.TrimExcess();
    }

    public (int Gen0, int Gen1, int Gen2) Counts()
    {
        if (_released is { } released) return released;
        var counts = (Gen0: 0, Gen1: 0, Gen2: 0);
        foreach (var (_, generation) in All)
        {
            if (generation == 0) counts.Gen0++;
            else if (generation == 1) counts.Gen1++;
            else counts.Gen2++;
        }
        return counts;
    }
}
