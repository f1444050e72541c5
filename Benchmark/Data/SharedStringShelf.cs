using System.Runtime.Serialization;

namespace EtwSerializerProfiler.Benchmark.Data;

/// <summary>
/// Many books whose Title is the same long string instance. A serializer that keeps object identity writes it
/// once and returns one instance; one that does not writes and allocates it N times.
/// </summary>
[DataContract(IsReference = true), Serializable]
public sealed class SharedStringShelf
{
    [DataMember(Order = 1)]
    public List<SharedTitleBook> Books { get; set; } = [];
}

[DataContract, Serializable]
public sealed class SharedTitleBook
{
    [DataMember(Order = 1)]
    public string? Title { get; set; }

    [DataMember(Order = 2)]
    public int Id { get; set; }
}
