using System.Diagnostics.Tracing;
using System.Text.Json;
using System.Text.Json.Serialization;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.Profiles;

/// <summary>
/// A trace profile: which providers, keywords and levels to enable, independent of the backend. EventPipe renders
/// providers; ETW additionally renders the kernel part and the per-event stack and ID filters.
/// </summary>
public sealed record TraceProfile
{
    public required string Name { get; init; }
    public required string Description { get; init; }
    /// <summary>CPU sampling interval; 0 = no CPU sampling. EventPipe's sampler has a fixed rate (see docs/recorder.md).</summary>
    public double CpuSamplingMs { get; init; }
    /// <summary>
    /// The kernel session's interval on a Linux virtual machine, where each perf sample's timer interrupt exits to the
    /// host (<see cref="CpuSampling"/>); null = <see cref="CpuSamplingMs"/> there too.
    /// </summary>
    public double? VirtualMachineCpuSamplingMs { get; init; }
    /// <summary>
    /// What the EventPipe trace grows by per second, measured (docs/recorder.md, "Whole recordings": the worst case
    /// seen); the recorder checks free space against it before recording. 0 = not measured.
    /// </summary>
    public double TraceMBPerSecond { get; init; }
    public List<ProviderSpec> Providers { get; set; } = [];
    public KernelSpec? Kernel { get; init; }
}

public sealed record ProviderSpec
{
    public required string Name { get; init; }
    public List<string> Keywords { get; set; } = [];
    [JsonConverter(typeof(JsonStringEnumConverter<EventLevel>))]
    public EventLevel Level { get; set; } = EventLevel.Informational;
    public bool EventPipeOnly { get; init; }
    /// <summary>Left out when a kernel session samples the CPU (EventPipe's SampleProfiler: see docs/recorder.md for the numbers).</summary>
    public bool ReplacedByKernelSampling { get; init; }
    public EtwFilterSpec? Etw { get; init; }
    /// <summary>
    /// EventPipe: keywords (also in <see cref="Keywords"/>) recorded in a second session without stacks, whose stacks are
    /// only sampled (a short window every few seconds): high-rate events, such as the runtime's exceptions, whose
    /// stack walks would cost more than the code traced (docs/recorder.md, "Exceptions without stacks"). ETW: ignored.
    /// </summary>
    public List<string> StacklessKeywords { get; set; } = [];
    /// <summary>
    /// The stackless sessions' level: Error by default, so the runtime's exceptions are their throws alone
    /// (ExceptionThrown_V1); the catch, finally and filter events (Informational) would triple the events and go unread.
    /// </summary>
    [JsonConverter(typeof(JsonStringEnumConverter<EventLevel>))]
    public EventLevel StacklessLevel { get; set; } = EventLevel.Error;

    /// <summary>
    /// The stackless session's stream rate, in MB a second, above which it stops (null: it never does). At that rate
    /// its events cost about as much as the throws they count; runs then take their counts from the process
    /// (RunStop version 2: RunMarkers counts first-chance exceptions) and their sites from the sampled windows.
    /// </summary>
    public double? StacklessMaxMBPerSecond { get; set; }

    /// <summary>
    /// EventPipe: the keywords (also in <see cref="Keywords"/>) whose events' stacks the analysis reads (the runtime's
    /// lock waits: who wanted the lock). When nothing else in the main session needs a stack (no EventPipe sampler: the
    /// kernel session samples the CPU), the main session records without stacks and these keywords go to a session
    /// with stacks of their own. A stack walk per allocation tick cost YamlDotNet's deserialize about 5% (docs/recorder.md,
    /// "Stacks only where read"). Empty: no event needs one. Absent (null): the main session keeps a stack on every
    /// event. ETW: ignored.
    /// </summary>
    public List<string>? StackKeywords { get; set; }

    /// <summary>Keyword names resolved to the provider's mask; hex literals ("0x4000") pass through.</summary>
    public long KeywordMask => KeywordNames.Resolve(Name, Keywords);

    /// <summary><see cref="StacklessKeywords"/> resolved to a mask; 0 when there are none.</summary>
    public long StacklessMask => StacklessKeywords.Count == 0 ? 0 : KeywordNames.Resolve(Name, StacklessKeywords);

    /// <summary><see cref="StackKeywords"/> resolved to a mask; 0 when there are none.</summary>
    public long StackMask => StackKeywords is not { Count: > 0 } keywords ? 0 : KeywordNames.Resolve(Name, keywords);
}

/// <summary>ETW-only refinements (TraceEventProviderOptions / tracelog -stackwalkFilter / -EventIdFilter).</summary>
public sealed record EtwFilterSpec
{
    public List<int> StackEventIds { get; set; } = [];
    public List<int> DisabledEventIds { get; set; } = [];
}

public sealed record KernelSpec
{
    public List<string> Keywords { get; set; } = [];
    public List<string> Stacks { get; set; } = [];
    /// <summary>
    /// Linux (perf): which events carry call stacks there; null = <see cref="Stacks"/>. The analysis reads only the
    /// times, threads and states of context switches and wake-ups, so perf can leave their stacks out (ETW keeps
    /// them for WPA's wait analysis).
    /// </summary>
    public List<string>? PerfStacks { get; set; }
}

public sealed record ProfileFile
{
    public List<TraceProfile> Profiles { get; set; } = [];

    public static readonly JsonSerializerOptions JsonOptions = new()
    {
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        ReadCommentHandling = JsonCommentHandling.Skip,
        AllowTrailingCommas = true,
        TypeInfoResolver = ProfileJsonContext.Default,
    };
}

// The same settings as ProfileFile.JsonOptions: generated metadata, so the native esp (Cli/NativeAot.targets) reads profiles too.
// Generated metadata assigns every init-only property, so one the file leaves out would read null or 0 instead of its
// default: the properties with defaults above are settable ({ get; set; }) for that reason.
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, ReadCommentHandling = JsonCommentHandling.Skip, AllowTrailingCommas = true)]
[JsonSerializable(typeof(ProfileFile))]
internal sealed partial class ProfileJsonContext : JsonSerializerContext;
