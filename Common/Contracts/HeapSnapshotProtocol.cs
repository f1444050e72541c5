using System.Text.Json;
using System.Text.Json.Serialization;

namespace EtwSerializerProfiler.Common;

/// <summary>
/// The handshake between the benchmark (holds the graphs, waits) and the recorder (writes the dump), one JSON object
/// per line over a named pipe the recorder creates before starting the benchmark (--heap-pipe NAME):
/// <code>
/// benchmark → recorder   {"kind":"plan", ...}     once, after connecting: what will be snapshotted
/// benchmark → recorder   {"kind":"ready", ...}    graphs rooted, measured; the benchmark now blocks
/// recorder → benchmark   {"kind":"done", ...}     dump written (or failed); the benchmark lets go and goes on
/// </code>
/// Every wait has a timeout on both sides and end-of-stream means "the other side is gone", so neither side can
/// hang the other: the benchmark gives up after --heap-timeout, the recorder answers before that.
/// </summary>
public static class HeapSnapshotProtocol
{
    public const string Plan = "plan";
    public const string Ready = "ready";
    public const string Done = "done";

    /// <summary>How long the benchmark waits for a connection to the recorder's pipe (it exists before the benchmark starts).</summary>
    public static readonly TimeSpan ConnectTimeout = TimeSpan.FromSeconds(15);

    /// <summary>Default limit for writing one dump; the benchmark waits a minute longer so the recorder always answers first.</summary>
    public static readonly TimeSpan DefaultDumpTimeout = TimeSpan.FromMinutes(5);

    public static readonly TimeSpan BenchmarkWaitMargin = TimeSpan.FromMinutes(1);

    private static readonly JsonSerializerOptions s_options = new()
    {
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        WriteIndented = false, // one message per line
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
        TypeInfoResolver = HeapSnapshotJsonContext.Default,
    };

    // Through the generated metadata (HeapSnapshotJsonContext), so the native esp (Cli/NativeAot.targets) reads it too.
    public static string Serialize<T>(T value) => JsonSerializer.Serialize(value, Info<T>());

    public static T Deserialize<T>(string json) =>
        JsonSerializer.Deserialize(json, Info<T>()) ?? throw new InvalidDataException("empty heap snapshot message");

    private static System.Text.Json.Serialization.Metadata.JsonTypeInfo<T> Info<T>() =>
        (System.Text.Json.Serialization.Metadata.JsonTypeInfo<T>)s_options.GetTypeInfo(typeof(T));
}

[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(HeapSnapshotMessage))]
[JsonSerializable(typeof(HeapSnapshotInfo))]
internal sealed partial class HeapSnapshotJsonContext : JsonSerializerContext;

/// <summary>One line of the handshake; Kind says which fields are set.</summary>
public sealed record HeapSnapshotMessage
{
    public required string Kind { get; init; }
    /// <summary>ready/done: matches a reply to its request, so a late reply to a timed-out request is recognised.</summary>
    public int Sequence { get; init; }
    /// <summary>plan: the snapshots the benchmark will take (status unset).</summary>
    public List<HeapSnapshotInfo>? Planned { get; init; }
    /// <summary>ready: the snapshot point; done: the same, with Status/File/Error filled in.</summary>
    public HeapSnapshotInfo? Snapshot { get; init; }
    /// <summary>plan/ready: the process to dump (the benchmark's own id, which the recorder checks against its child).</summary>
    public int ProcessId { get; init; }
    /// <summary>plan: where the runtime (and createdump) lives, for a precise error when the dump fails.</summary>
    public string? RuntimeDirectory { get; init; }
    /// <summary>ready: the process's working set, a lower bound for the dump size (disk space check).</summary>
    public long WorkingSetBytes { get; init; }
}
