using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Heap;

/// <summary>One dump, both graphs: the benchmark's original and the serializer's result (the JSON output's shape).</summary>
public sealed record HeapSnapshotAnalysis
{
    public required string File { get; init; }
    /// <summary>The snapshot point as the benchmark described it inside the dump (plus the recorder's outcome when known).</summary>
    public required HeapSnapshotInfo Snapshot { get; init; }
    public required string Runtime { get; init; }
    public required GraphSummary Original { get; init; }
    public required GraphSummary Deserialized { get; init; }
    /// <summary>Objects reachable from both graphs (e.g. a serializer handing back a cached instance): counted in each.</summary>
    public long SharedObjects { get; init; }
    public long SharedBytes { get; init; }
    public required List<TypeRow> Types { get; init; }
    /// <summary>Strings with the same content held by more than one instance, biggest waste first.</summary>
    public required List<DuplicateString> DuplicateStrings { get; init; }
}

public sealed record GraphSummary
{
    public long Objects { get; init; }
    public long Bytes { get; init; }
    public long Strings { get; init; }
    public long StringBytes { get; init; }
    public long DistinctStrings { get; init; }
    /// <summary>Bytes of string instances whose content an earlier instance in the same graph already holds.</summary>
    public long DuplicateStringBytes { get; init; }
    public long FrozenObjects { get; init; }
    public long Unreadable { get; init; }
}

public sealed record TypeRow(string Type, long OriginalCount, long OriginalBytes, long DeserializedCount, long DeserializedBytes);

public sealed record DuplicateString(string Graph, int Length, long Instances, long InstanceBytes, long WastedBytes, string Preview);
