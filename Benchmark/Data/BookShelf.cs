using System.Runtime.Serialization;

namespace EtwSerializerProfiler.Benchmark.Data;

/// <summary>The classic SerializerTests payload. Secret is private on purpose: which serializers keep it?</summary>
[DataContract, Serializable]
public sealed class BookShelf
{
    [DataMember(Order = 1)]
    public List<Book> Books { get; set; } = [];

    [DataMember(Order = 2)]
    private string? Secret { get; set; }

    public BookShelf() { }

    public BookShelf(string secret) => Secret = secret;

    public string? GetSecret() => Secret;
}

[DataContract, Serializable]
public sealed class Book
{
    [DataMember(Order = 1)]
    public string? Title { get; set; }

    [DataMember(Order = 2)]
    public int Id { get; set; }

    [DataMember(Order = 3)]
    public byte[]? Payload { get; set; }
}
