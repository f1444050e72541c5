namespace EtwSerializerProfiler.Benchmark.Serializers;

/// <summary>
/// The object table of .NET Framework's BinaryFormatter (ObjectManager before the .NET Core 2.0 fix, seed 000):
/// a fixed array of <see cref="BucketCount"/> buckets indexed by id &amp; (BucketCount - 1), each a linked list of
/// holders, new holders prepended. Every registration first looks the id up (ObjectManager.FindOrCreateObjectHolder),
/// and a miss walks the whole chain, so with n objects registration costs O(n / 4096) and a whole read O(n² / 4096).
/// Kept faithfully slow on purpose: it is the reproducer of an algorithmic blow-up, not a data structure to copy.
/// </summary>
internal sealed class ObjectHolderTable
{
    /// <summary>ObjectManager.MaxArraySize = 0x1000 in .NET Framework 4.6.2; .NET Core raised it to 0x100000.</summary>
    public const int BucketCount = 0x1000;
    private const int Mask = BucketCount - 1;

    private readonly Holder?[] _buckets = new Holder?[BucketCount];

    public int Count { get; private set; }

    public object? Find(int id)
    {
        for (var h = _buckets[id & Mask]; h is not null; h = h.Next)
            if (h.Id == id) return h.Value;
        return null;
    }

    public void Register(int id, object value)
    {
        if (Find(id) is not null) throw new InvalidDataException($"object id {id} registered twice");
        _buckets[id & Mask] = new Holder(id, value, _buckets[id & Mask]);
        Count++;
    }

    private sealed class Holder(int id, object value, Holder? next)
    {
        public int Id { get; } = id;
        public object Value { get; } = value;
        public Holder? Next { get; } = next;
    }
}
