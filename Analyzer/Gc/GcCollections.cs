namespace EtwSerializerProfiler.Analyzer.Gc;

/// <summary>
/// The garbage collections by generation, counted as TraceEvent's GC analysis lists them: a GCStart counts while the
/// runtime is suspended (the suspension the GC runs in), once per GC number (some runtimes write GCStart twice for one
/// GC). This is all the analysis read of TraceEvent's <c>NeedLoadedDotNetRuntimes</c>, whose JIT, allocation and heap
/// statistics cost about a tenth of a cold analysis's CPU and 14 MB of its peak memory (docs/analyzer.md#speed);
/// pauses come from <see cref="RuntimeSuspensions"/>. Counts only: each GC goes to its run as it comes
/// (<see cref="RunGcs"/>), so nothing here grows with the trace.
/// </summary>
internal sealed class GcCollections
{
    private int? _lastNumber;
    private int _gen0, _gen1, _gen2;

    /// <param name="number">The GC's number (GCStart's Count).</param>
    /// <param name="generation">The generation collected (GCStart's Depth): 0, 1 or 2.</param>
    /// <param name="suspended">Whether a runtime suspension is open: a GCStart outside one is not counted.</param>
    /// <returns>Whether it counted (a GC not seen before, inside a suspension).</returns>
    public bool Start(int number, int generation, bool suspended)
    {
        if (!suspended || _lastNumber == number) return false;
        _lastNumber = number;
        if (generation == 0) _gen0++;
        else if (generation == 1) _gen1++;
        else _gen2++;
        return true;
    }

    public (int Gen0, int Gen1, int Gen2) Counts() => (_gen0, _gen1, _gen2);
}
