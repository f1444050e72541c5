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
    public List<ProviderSpec> Providers { get; init; } = [];
    public KernelSpec? Kernel { get; init; }
}

public sealed record ProviderSpec
{
    public required string Name { get; init; }
    public List<string> Keywords { get; init; } = [];
    [JsonConverter(typeof(JsonStringEnumConverter<EventLevel>))]
    public EventLevel Level { get; init; } = EventLevel.Informational;
    public bool EventPipeOnly { get; init; }
    /// <summary>Left out when a kernel session samples the CPU (EventPipe's SampleProfiler: see docs/recorder.md for the numbers).</summary>
    public bool ReplacedByKernelSampling { get; init; }
    public EtwFilterSpec? Etw { get; init; }

    /// <summary>Keyword names resolved to the provider's mask; hex literals ("0x4000") pass through.</summary>
    public long KeywordMask => KeywordNames.Resolve(Name, Keywords);
}

/// <summary>ETW-only refinements (TraceEventProviderOptions / tracelog -stackwalkFilter / -EventIdFilter).</summary>
public sealed record EtwFilterSpec
{
    public List<int> StackEventIds { get; init; } = [];
    public List<int> DisabledEventIds { get; init; } = [];
}

public sealed record KernelSpec
{
    public List<string> Keywords { get; init; } = [];
    public List<string> Stacks { get; init; } = [];
}

public sealed record ProfileFile
{
    public List<TraceProfile> Profiles { get; init; } = [];

    public static readonly JsonSerializerOptions JsonOptions = new()
    {
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        ReadCommentHandling = JsonCommentHandling.Skip,
        AllowTrailingCommas = true,
    };
}
