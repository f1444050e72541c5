using System.Text.Json;
using System.Text.Json.Serialization;

namespace EtwSerializerProfiler.Common;

/// <summary>
/// What the benchmark measured in-process (the "truth" a trace is checked against). Written by the benchmark as
/// results.json, read by the analyzer from a trace folder. Property names are the JSON contract.
/// </summary>
public sealed record BenchmarkResults
{
    public required string Runtime { get; init; }
    public required string OperatingSystem { get; init; }
    public required string Configuration { get; init; }
    public required bool DebuggerAttached { get; init; }
    public required int ProcessId { get; init; }
    public required DateTime StartTimeUtc { get; init; }
    public required string CommandLine { get; init; }
    /// <summary>--appcontext switches the benchmark set at startup; null when none.</summary>
    public Dictionary<string, bool>? AppContextSwitches { get; init; }
    /// <summary>RuntimeFeature.IsDynamicCodeSupported as the serializers saw it: false means reflection instead of emitted code.</summary>
    public bool? DynamicCodeSupported { get; init; }
    public List<RunResult> Runs { get; init; } = [];
    public List<UnsupportedSerializer> Unsupported { get; init; } = [];
    public List<string> Errors { get; init; } = [];
    /// <summary>--heap: the snapshot points and their in-process measurements (null when none were requested).</summary>
    public List<HeapSnapshotInfo>? HeapSnapshots { get; init; }

    public static readonly JsonSerializerOptions JsonOptions = new()
    {
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        WriteIndented = true,
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
    };

    // Source-generated: reflection-based metadata costs more than reading a long results.json itself.
    public static BenchmarkResults Load(string path) =>
        // From bytes, not a stream: records with required members are read with whole-object read-ahead, which on a
        // stream re-buffers the file over and over (quadratic for a long results.json).
        Checked(JsonSerializer.Deserialize(File.ReadAllBytes(path), ResultsJsonContext.Default.BenchmarkResults)
            ?? throw new InvalidDataException($"{path}: empty benchmark results"), path);

    /// <summary>
    /// JSON null satisfies "required" and a non-nullable property alike: a damaged results.json is refused here
    /// (the analyzer then warns and goes on without it) rather than reaching the analysis half-filled.
    /// </summary>
    private static BenchmarkResults Checked(BenchmarkResults results, string path)
    {
        if (results.Runs is null || results.Runs.Any(r => r is null || r.Serializer is null || r.Operation is null || r.Data is null || r.GcCount is null))
            throw new InvalidDataException($"{path}: a run without its serializer, operation, data or GC counts");
        return results with
        {
            Unsupported = results.Unsupported?.Where(u => u?.Serializer is not null && u.Reason is not null).ToList() ?? [],
            Errors = results.Errors?.Where(e => e is not null).ToList() ?? [],
        };
    }

    public void Save(string path)
    {
        var tmp = path + ".tmp";
        using (var stream = File.Create(tmp)) JsonSerializer.Serialize(stream, this, ResultsJsonContext.Default.BenchmarkResults);
        File.Move(tmp, path, overwrite: true);
    }
}

public sealed record GcCounts(int Gen0, int Gen1, int Gen2)
{
    [System.Text.Json.Serialization.JsonIgnore]
    public int Total => Gen0 + Gen1 + Gen2;
    public static GcCounts operator +(GcCounts a, GcCounts b) => new(a.Gen0 + b.Gen0, a.Gen1 + b.Gen1, a.Gen2 + b.Gen2);
    public static readonly GcCounts Zero = new(0, 0, 0);
}

public sealed record RunResult
{
    public required string Serializer { get; init; }
    public string? SerializerVersion { get; init; }
    public string? Format { get; init; }
    public required string Operation { get; init; }
    public required string Data { get; init; }
    public required int Objects { get; init; }
    public required int Run { get; init; }
    public bool Warmup { get; init; }
    public int Threads { get; init; } = 1;
    public required double DurationMs { get; init; }
    /// <summary>
    /// Stopwatch from just before RunBegin to just after RunEnd: DurationMs plus the two events' writes. A trace's
    /// run window lies between the two; a large gap means the worker was held up writing an event (a busy machine).
    /// </summary>
    public double? OuterDurationMs { get; init; }
    public long SizeBytes { get; init; }
    public required GcCounts GcCount { get; init; }
    public required double GcPauseMs { get; init; }
    public required long AllocatedBytes { get; init; }
    public double CpuMs { get; init; }
    public int WorkerThreadId { get; init; }
    public int MarkerThreadId { get; init; }
    public string? Verification { get; init; }
}

public sealed record UnsupportedSerializer(string Serializer, string Reason);

[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, WriteIndented = true,
    DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(BenchmarkResults))]
internal sealed partial class ResultsJsonContext : JsonSerializerContext;
