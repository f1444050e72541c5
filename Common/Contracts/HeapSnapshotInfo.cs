using System.Text.Json.Serialization;

namespace EtwSerializerProfiler.Common;

public enum HeapSnapshotStatus
{
    /// <summary>The dump was written while both graphs were alive.</summary>
    Taken,
    /// <summary>The recorder tried and could not write the dump (Error says why); the benchmark went on.</summary>
    Failed,
    /// <summary>The benchmark ran without a recorder to take the dump (no --heap-pipe, or it could not connect).</summary>
    NoRecorder,
    /// <summary>Requested, but the benchmark never got there (serializer unsupported or failed, child crashed).</summary>
    NotReached,
}

/// <summary>
/// One heap snapshot point: which run it follows, what the benchmark measured in-process around it, and what became
/// of the dump. The same record travels in the benchmark's results.json, the recorder's pipe message, the
/// manifest, and (as JSON) a static field in the dump itself, so every copy says the same thing.
/// </summary>
public sealed record HeapSnapshotInfo
{
    public required string Serializer { get; init; }
    /// <summary>Always "deserialize": the snapshot holds a deserialized result.</summary>
    /// <remarks>Settable: generated JSON metadata would assign an init-only one null when a message leaves it out.</remarks>
    public string Operation { get; set; } = "deserialize";
    /// <summary>The data type name (BookShelf, LargeRecordList, SharedStringShelf).</summary>
    public required string Data { get; init; }
    public required int Objects { get; init; }
    /// <summary>
    /// The run number of the snapshot's deserialize: one past the last measured run of this serializer and size.
    /// It is not measured (no RunStart/RunStop): the forced GCs around it would distort a measured run.
    /// </summary>
    public int Run { get; init; }
    public long SerializedBytes { get; init; }
    /// <summary>GC.GetTotalMemory(true) after minus before building the original graph.</summary>
    public long? OriginalInProcessBytes { get; init; }
    /// <summary>GC.GetTotalMemory(true) after minus before deserializing into the holder.</summary>
    public long? DeserializedInProcessBytes { get; init; }
    public int? ProcessId { get; init; }

    [JsonConverter(typeof(JsonStringEnumConverter<HeapSnapshotStatus>))]
    public HeapSnapshotStatus? Status { get; init; }
    /// <summary>The dump's file name, relative to the trace folder.</summary>
    public string? File { get; init; }
    public string? Error { get; init; }
    public string? DumpType { get; init; }
    public long? DumpBytes { get; init; }
    public double? DumpSeconds { get; init; }
}
