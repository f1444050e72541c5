using System.Runtime.InteropServices;
using System.Text.Json;
using System.Text.Json.Serialization;
using EtwSerializerProfiler.Recorder.Profiles;

namespace EtwSerializerProfiler.Recorder;

/// <summary>manifest.json: everything needed to interpret a trace folder later, on another machine.</summary>
public sealed record Manifest
{
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
    /// <summary>EventPipe's sampler interval is fixed by the runtime (1 ms); ETW uses the profile's.</summary>
    public double? CpuSamplingMs { get; init; }
    public string? CpuSamplingNote { get; init; }
    /// <summary>ETW only: the kernel keywords (profile names), their combined mask, and the kernel events with stacks.</summary>
    public List<string>? KernelKeywords { get; init; }
    public string? KernelFlags { get; init; }
    public List<string>? KernelStacks { get; init; }
    /// <summary>Linux: the perf kernel session beside EventPipe (or why there is none).</summary>
    public Kernel.KernelSessionInfo? Kernel { get; init; }
    /// <summary>ETW only: the sessions that recorded (one on Windows 8+, kernel logger plus user session before).</summary>
    public List<string>? EtwSessions { get; init; }
    public int? ChildProcessId { get; init; }
    public int? ChildExitCode { get; init; }
    [JsonConverter(typeof(JsonStringEnumConverter<RecordingStatus>))]
    public RecordingStatus? Status { get; init; }
    public bool Incomplete { get; init; }
    public long? TraceBytes { get; init; }
    public string? TraceFile { get; init; }
    public string? ResultsFile { get; init; }
    public string? StackTagsFile { get; init; }
    /// <summary>What the profile or backend left out (e.g. ETW-only filters on EventPipe), so nobody assumes it is there.</summary>
    public List<string> Dropped { get; init; } = [];
    public List<string> Warnings { get; init; } = [];
    /// <summary>--heap: every requested snapshot, taken or not, with the run it belongs to and the dump's file.</summary>
    public List<Common.HeapSnapshotInfo>? HeapSnapshots { get; init; }

    public static readonly JsonSerializerOptions JsonOptions = new()
    {
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        WriteIndented = true,
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
    };

    public void Save(string path) => File.WriteAllText(path, JsonSerializer.Serialize(this, JsonOptions));

    public static Manifest Load(string path) =>
        JsonSerializer.Deserialize<Manifest>(File.ReadAllText(path), JsonOptions) ?? throw new InvalidDataException($"{path}: empty manifest");

    public static string Version => typeof(Manifest).Assembly.GetName().Version?.ToString(3) ?? "0.0.0";

    public static string Os => $"{RuntimeInformation.OSDescription} {RuntimeInformation.OSArchitecture}";
}

public sealed record ManifestProvider(string Name, string Keywords, string Level, IReadOnlyList<string> KeywordNames);
