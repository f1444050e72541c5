namespace EtwSerializerProfiler.Analyzer.Heap;

/// <summary>
/// Everything reachable from one root in a dump: objects and bytes per type, and every string with its content
/// (for the duplicate-string count). Sizes are the GC's object sizes, the unit GC.GetTotalMemory counts in.
/// </summary>
internal sealed class GraphCensus
{
    public Dictionary<string, TypeTally> ByType { get; } = new(StringComparer.Ordinal);
    public List<StringInstance> Strings { get; } = [];
    public HashSet<ulong> Addresses { get; } = [];
    public long Objects { get; private set; }
    public long Bytes { get; private set; }
    /// <summary>Objects outside the GC heap (frozen string literals): reachable, but no GC heap memory to count.</summary>
    public long FrozenObjects { get; set; }
    /// <summary>References that did not lead to a readable object (a corrupt or partial dump).</summary>
    public long Unreadable { get; set; }

    public void Add(ulong address, string typeName, long size)
    {
        Addresses.Add(address);
        Objects++;
        Bytes += size;
        ByType.TryGetValue(typeName, out var tally);
        ByType[typeName] = new TypeTally(tally.Count + 1, tally.Bytes + size);
    }
}

internal readonly record struct TypeTally(long Count, long Bytes);

/// <summary>One string object: where it is (identity), its GC size, its content.</summary>
internal readonly record struct StringInstance(ulong Address, long Size, string Value);
