using System.Runtime.Serialization;
using MessagePack;
using ProtoBuf;

namespace EtwSerializerProfiler.Benchmark.Data;

/// <summary>
/// Many books whose Title is the same long string instance. A serializer that keeps object identity writes it
/// once and returns one instance; one that does not writes and allocates it N times.
/// </summary>
[DataContract(IsReference = true), Serializable, ProtoContract, MessagePackObject]
public sealed class SharedStringShelf
{
    [DataMember(Order = 1), ProtoMember(1), Key(0)]
    public List<SharedTitleBook> Books { get; set; } = [];
}

[DataContract, Serializable, ProtoContract, MessagePackObject]
public sealed class SharedTitleBook
{
    [DataMember(Order = 1), ProtoMember(1), Key(0)]
    public string? Title { get; set; }

    [DataMember(Order = 2), ProtoMember(2), Key(1)]
    public int Id { get; set; }
}
