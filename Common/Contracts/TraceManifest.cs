using System.Text.Json;
using System.Text.Json.Serialization;

namespace EtwSerializerProfiler.Common;

/// <summary>
/// manifest.json: everything needed to interpret a trace folder later, on another machine. The recorder writes it
/// (<see cref="Save"/>), the analyzer reads it (<see cref="Load"/>, <see cref="TryLoad"/>); both through
/// <see cref="JsonOptions"/>, which fixes the wire format (camelCase names, nulls left out, indented). Folders
/// recorded before this record moved here have the same format (Tests/Common/Contracts/TraceManifestTests.cs reads one).
/// </summary>
public sealed record TraceManifest
{
    /// <summary>The values of <see cref="Backend"/>.</summary>
    public const string EventPipeBackend = "eventpipe";
    public const string EtwBackend = "etw";

    public required string RecorderVersion { get; init; }
    public required string Backend { get; init; }
    public required string Profile { get; init; }
    public required string ProfileDescription { get; init; }
    public required List<ManifestProvider> Providers { get; init; }
    public required string CommandLine { get; init; }
    public Dictionary<string, string>? Environment { get; init; }
    public required string RecorderRuntime { get; init; }
    /// <summary>The runtime the recorded benchmark ran on, as it reported it in results.json (".NET 8.0.31").</summary>
    public string? BenchmarkRuntime { get; init; }
    /// <summary>esp record --runtime's value, when given.</summary>
    public string? RequestedRuntime { get; init; }
    public required string OperatingSystem { get; init; }
    public required DateTime StartTimeUtc { get; init; }
    public double? DurationSeconds { get; init; }
    /// <summary>
    /// The recorder's own CPU time while it recorded, in seconds (copying the EventPipe streams, its sessions'
    /// control): with kernel.perfCpuSeconds, what the tracer took from the machine. Null in older manifests.
    /// </summary>
    public double? RecorderCpuSeconds { get; init; }
    /// <summary>EventPipe's sampler interval is fixed by the runtime (1 ms); ETW uses the profile's.</summary>
    public double? CpuSamplingMs { get; init; }
    public string? CpuSamplingNote { get; init; }
    /// <summary>ETW only: the kernel keywords (profile names), their combined mask, and the kernel events with stacks.</summary>
    public List<string>? KernelKeywords { get; init; }
    public string? KernelFlags { get; init; }
    public List<string>? KernelStacks { get; init; }
    /// <summary>Linux: the perf kernel session beside EventPipe (or why there is none).</summary>
    public KernelSessionInfo? Kernel { get; init; }
    /// <summary>ETW only: the sessions that recorded (one on Windows 8+, kernel logger plus user session before).</summary>
    public List<string>? EtwSessions { get; init; }
    public int? ChildProcessId { get; init; }
    public int? ChildExitCode { get; init; }
    /// <summary>`esp record --pid`: the process ran before the recording (its startup is not in the trace); null when esp started it.</summary>
    public AttachInfo? Attached { get; init; }
    /// <summary>The BenchmarkDotNet diagnoser's word on a trace it recorded from the measured iterations on; null otherwise.</summary>
    public HarnessInfo? Harness { get; init; }
    [JsonConverter(typeof(JsonStringEnumConverter<RecordingStatus>))]
    public RecordingStatus? Status { get; init; }
    public bool Incomplete { get; init; }
    /// <summary>DiskFull/WriteFailed: where the recording was cut (reason, time, bytes written).</summary>
    public RecordingCut? Cut { get; init; }
    public long? TraceBytes { get; init; }
    public string? TraceFile { get; init; }
    public string? ResultsFile { get; init; }
    /// <summary>
    /// The profile's stackless events (exceptions) without stacks (<see cref="TraceFolderLayout.ExceptionsTrace"/>), and how
    /// many sampling windows recorded them with stacks (<see cref="TraceFolderLayout.ExceptionStacksPattern"/>); null when none.
    /// </summary>
    public string? ExceptionsFile { get; init; }
    public int? ExceptionStackFiles { get; init; }
    /// <summary>
    /// Seconds after the recording started when the session without stacks stopped at a high throw rate (the
    /// profile's stacklessMaxMBPerSecond); null when it recorded to the end. Later throws are counted by runs
    /// (RunStop version 2) and sampled in windows.
    /// </summary>
    public double? ExceptionsStoppedAtSeconds { get; init; }
    /// <summary>
    /// EventPipe: the main trace has no stacks; only these keywords' events have them ("provider:0xMASK"), in
    /// TraceFolderLayout.StacksTrace (docs/recorder.md#stacks-only-where-read). Null: every event has a stack.
    /// </summary>
    public List<string>? StacksOnlyFor { get; init; }
    public string? StackTagsFile { get; init; }
    /// <summary>What the profile or backend left out (e.g. ETW-only filters on EventPipe), so nobody assumes it is there.</summary>
    // Settable: generated JSON metadata would assign init-only ones null when a manifest leaves them out.
    public List<string> Dropped { get; set; } = [];
    public List<string> Warnings { get; set; } = [];
    /// <summary>--heap: every requested snapshot, taken or not, with the run it belongs to and the dump's file.</summary>
    public List<HeapSnapshotInfo>? HeapSnapshots { get; init; }

    /// <summary>Source-generated metadata (<see cref="ManifestJsonContext"/>): no reflection-based serializer to JIT on every analysis.</summary>
    public static readonly JsonSerializerOptions JsonOptions = new()
    {
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        WriteIndented = true,
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
        TypeInfoResolver = ManifestJsonContext.Default,
    };

    public string ToJson() => JsonSerializer.Serialize(this, ManifestJsonContext.Default.TraceManifest);

    public void Save(string path) => File.WriteAllText(path, ToJson());

    public static TraceManifest Parse(string json) =>
        JsonSerializer.Deserialize(json, ManifestJsonContext.Default.TraceManifest) ?? throw new InvalidDataException("empty manifest");

    public static TraceManifest Load(string path)
    {
        try { return Parse(File.ReadAllText(path)); }
        catch (InvalidDataException) { throw new InvalidDataException($"{path}: empty manifest"); }
    }

    /// <summary>The manifest's heapSnapshots array alone (a reader that keeps the snapshots of a manifest damaged elsewhere).</summary>
    public static List<HeapSnapshotInfo?>? ParseHeapSnapshots(JsonElement array) => array.Deserialize(ManifestJsonContext.Default.ListHeapSnapshotInfo)!;

    /// <summary>
    /// For readers that do without a manifest (the analyzer: a bare .nettrace has none): null when the file is
    /// missing or not a manifest (damaged, or a required field absent), never an exception.
    /// </summary>
    public static TraceManifest? TryLoad(string? path)
    {
        if (path is null || !File.Exists(path)) return null;
        try { return TryParse(File.ReadAllBytes(path)); }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { return null; }
    }

    /// <summary>
    /// Builds System.Text.Json's contract for the manifest now, so the first read or write finds it ready: in the
    /// ReadyToRun build that first use is JIT and type loads (docs/speed.md).
    /// </summary>
    public static void Prepare() => ManifestJsonContext.Default.Options.GetTypeInfo(typeof(TraceManifest));

    /// <summary>As <see cref="TryLoad"/>, from the file's bytes (read once by whoever holds them).</summary>
    public static TraceManifest? TryParse(byte[]? utf8)
    {
        if (utf8 is null) return null;
        try { return JsonSerializer.Deserialize(utf8, ManifestJsonContext.Default.TraceManifest); }
        catch (Exception ex) when (ex is JsonException or InvalidDataException or NotSupportedException) { return null; }
    }
}

/// <summary>One provider the session enabled: keywords as a hex mask and by name.</summary>
public sealed record ManifestProvider(string Name, string Keywords, string Level, IReadOnlyList<string> KeywordNames);

// The same settings as JsonOptions, which uses this context as its resolver.
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, WriteIndented = true,
    DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(TraceManifest))]
[JsonSerializable(typeof(List<HeapSnapshotInfo>))]
internal sealed partial class ManifestJsonContext : JsonSerializerContext;

/// <summary>An attached recording: whether the process exited while recorded, or ran on after it.</summary>
public sealed record AttachInfo(bool ProcessExited);

/// <summary>
/// A BenchmarkDotNet case recorded from its first measured iteration (the diagnoser attaches there), after the
/// events that name it and time its overhead: the case as its engine events name it, the measured iterations
/// BenchmarkDotNet dropped as outliers (0-based, in order) and its overhead per iteration (the median overhead-actual
/// iteration), from BenchmarkDotNet's own measurements. The analyzer takes these instead of working them out.
/// </summary>
public sealed record HarnessInfo(string Case, List<int> DroppedIterations, double OverheadNs);
