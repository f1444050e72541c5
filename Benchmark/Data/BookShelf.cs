using System.Runtime.Serialization;
using MessagePack;
using ProtoBuf;

namespace EtwSerializerProfiler.Benchmark.Data;

/// <summary>
/// The classic SerializerTests payload. Secret is private on purpose: which serializers keep it?
/// Contracts: [DataMember(Order)] for the in-box serializers and Newtonsoft.Json; protobuf-net's [ProtoMember] field
/// numbers are the same orders (the wire format Google.Protobuf's hand-written codec writes); MessagePack's [Key]s
/// are the orders minus one (an array, index 0 first).
/// </summary>
[DataContract, Serializable, ProtoContract, MessagePackObject]
public sealed class BookShelf
{
    [DataMember(Order = 1), ProtoMember(1), Key(0)]
    public List<Book> Books { get; set; } = [];

    [DataMember(Order = 2), ProtoMember(2), Key(1)]
    private string? Secret { get; set; }

    // MessagePack would otherwise weigh BookShelf(string) against the [Key]s; this one is the one to use.
    [SerializationConstructor]
    public BookShelf() { }

    public BookShelf(string secret) => Secret = secret;

    public string? GetSecret() => Secret;
}

[DataContract, Serializable, ProtoContract, MessagePackObject]
public sealed class Book
{
    [DataMember(Order = 1), ProtoMember(1), Key(0)]
    public string? Title { get; set; }

    [DataMember(Order = 2), ProtoMember(2), Key(1)]
    public int Id { get; set; }

    [DataMember(Order = 3), ProtoMember(3), Key(2)]
    public byte[]? Payload { get; set; }
}
