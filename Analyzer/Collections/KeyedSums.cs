using System.Runtime.InteropServices;

namespace EtwSerializerProfiler.Analyzer.Collections;

/// <summary>
/// Values summed by key, in the order added, the keys in first-seen order: what LINQ's GroupBy and Sum give. Written
/// out because LINQ over (key, value) tuples ran as tier-0 JIT code in the ReadyToRun build.
/// </summary>
internal sealed class KeyedSums<TKey> where TKey : notnull
{
    private readonly Dictionary<TKey, double> _sums;

    public KeyedSums(IEqualityComparer<TKey>? comparer = null) => _sums = new Dictionary<TKey, double>(comparer);

    /// <summary>The keys, first seen first.</summary>
    public List<TKey> Keys { get; } = [];

    public double this[TKey key] => _sums[key];

    public void Add(TKey key, double value)
    {
        ref var sum = ref CollectionsMarshal.GetValueRefOrAddDefault(_sums, key, out var seen);
        if (!seen) Keys.Add(key);
        sum += value;
    }
}
