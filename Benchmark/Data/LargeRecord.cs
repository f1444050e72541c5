using System.Runtime.Serialization;
using MessagePack;
using ProtoBuf;

namespace EtwSerializerProfiler.Benchmark.Data;

/// <summary>A wide object (~20 members of mixed kinds), closer to real business data than BookShelf.</summary>
[DataContract, Serializable, ProtoContract, MessagePackObject]
public sealed class LargeRecordList
{
    [DataMember(Order = 1), ProtoMember(1), Key(0)]
    public List<LargeRecord> Items { get; set; } = [];
}

[DataContract, Serializable, ProtoContract, MessagePackObject]
public sealed class LargeRecord
{
    [DataMember(Order = 1), ProtoMember(1), Key(0)] public int Id { get; set; }
    [DataMember(Order = 2), ProtoMember(2), Key(1)] public long Ticks { get; set; }
    [DataMember(Order = 3), ProtoMember(3), Key(2)] public short Small { get; set; }
    [DataMember(Order = 4), ProtoMember(4), Key(3)] public byte Flags { get; set; }
    [DataMember(Order = 5), ProtoMember(5), Key(4)] public bool IsActive { get; set; }
    [DataMember(Order = 6), ProtoMember(6), Key(5)] public double Price { get; set; }
    [DataMember(Order = 7), ProtoMember(7), Key(6)] public double Ratio { get; set; }
    [DataMember(Order = 8), ProtoMember(8), Key(7)] public float Weight { get; set; }
    [DataMember(Order = 9), ProtoMember(9), Key(8)] public decimal Amount { get; set; }
    [DataMember(Order = 10), ProtoMember(10), Key(9)] public string? Name { get; set; }
    [DataMember(Order = 11), ProtoMember(11), Key(10)] public string? Description { get; set; }
    [DataMember(Order = 12), ProtoMember(12), Key(11)] public string? Category { get; set; }
    [DataMember(Order = 13), ProtoMember(13), Key(12)] public DateTime Created { get; set; }
    [DataMember(Order = 14), ProtoMember(14), Key(13)] public DateTime Modified { get; set; }
    [DataMember(Order = 15), ProtoMember(15), Key(14)] public Guid Key { get; set; }
    [DataMember(Order = 16), ProtoMember(16), Key(15)] public List<int> Numbers { get; set; } = [];
    [DataMember(Order = 17), ProtoMember(17), Key(16)] public List<double> Samples { get; set; } = [];
    [DataMember(Order = 18), ProtoMember(18), Key(17)] public List<string> Tags { get; set; } = [];
    [DataMember(Order = 19), ProtoMember(19), Key(18)] public Dictionary<string, int> Counters { get; set; } = [];
    [DataMember(Order = 20), ProtoMember(20), Key(19)] public uint Version { get; set; }
    [DataMember(Order = 21), ProtoMember(21), Key(20)] public int? OptionalCode { get; set; }
}
