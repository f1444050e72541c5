using System.Runtime.Serialization;

namespace EtwSerializerProfiler.Benchmark.Data;

/// <summary>A wide object (~20 members of mixed kinds), closer to real business data than BookShelf.</summary>
[DataContract, Serializable]
public sealed class LargeRecordList
{
    [DataMember(Order = 1)]
    public List<LargeRecord> Items { get; set; } = [];
}

[DataContract, Serializable]
public sealed class LargeRecord
{
    [DataMember(Order = 1)] public int Id { get; set; }
    [DataMember(Order = 2)] public long Ticks { get; set; }
    [DataMember(Order = 3)] public short Small { get; set; }
    [DataMember(Order = 4)] public byte Flags { get; set; }
    [DataMember(Order = 5)] public bool IsActive { get; set; }
    [DataMember(Order = 6)] public double Price { get; set; }
    [DataMember(Order = 7)] public double Ratio { get; set; }
    [DataMember(Order = 8)] public float Weight { get; set; }
    [DataMember(Order = 9)] public decimal Amount { get; set; }
    [DataMember(Order = 10)] public string? Name { get; set; }
    [DataMember(Order = 11)] public string? Description { get; set; }
    [DataMember(Order = 12)] public string? Category { get; set; }
    [DataMember(Order = 13)] public DateTime Created { get; set; }
    [DataMember(Order = 14)] public DateTime Modified { get; set; }
    [DataMember(Order = 15)] public Guid Key { get; set; }
    [DataMember(Order = 16)] public List<int> Numbers { get; set; } = [];
    [DataMember(Order = 17)] public List<double> Samples { get; set; } = [];
    [DataMember(Order = 18)] public List<string> Tags { get; set; } = [];
    [DataMember(Order = 19)] public Dictionary<string, int> Counters { get; set; } = [];
    [DataMember(Order = 20)] public uint Version { get; set; }
    [DataMember(Order = 21)] public int? OptionalCode { get; set; }
}
