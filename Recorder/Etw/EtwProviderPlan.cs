using System.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Session;

namespace EtwSerializerProfiler.Recorder.Etw;

/// <summary>One user-mode provider exactly as the ETW backend enables it, and as the scripts and WPR profile spell it.</summary>
public sealed record EtwProviderPlan
{
    public required string Name { get; init; }
    public required Guid Guid { get; init; }
    public required ulong Keywords { get; init; }
    public IReadOnlyList<string> KeywordNames { get; init; } = [];
    public required EventLevel Level { get; init; }
    /// <summary>Only these events carry a stack (EVENT_FILTER_TYPE_STACKWALK); empty = no stacks at all.</summary>
    public IReadOnlyList<int> StackEventIds { get; init; } = [];
    /// <summary>Events dropped at the source (EVENT_FILTER_TYPE_EVENT_ID, filter out) although their keyword is on.</summary>
    public IReadOnlyList<int> DisabledEventIds { get; init; } = [];

    public TraceEventLevel TraceLevel => (TraceEventLevel)(int)Level;

    /// <summary>
    /// TraceEvent turns on EVENT_ENABLE_PROPERTY_STACK_TRACE whenever EventIDStacksToEnable is non-null, even empty,
    /// which would put a stack on every event: an empty list must stay null. StacksEnabled stays off so the filter,
    /// not the provider, decides which events pay for a stack walk.
    /// </summary>
    public TraceEventProviderOptions ToProviderOptions() => new()
    {
        StacksEnabled = false,
        EventIDStacksToEnable = StackEventIds.Count > 0 ? StackEventIds.ToList() : null,
        EventIDsToDisable = DisabledEventIds.Count > 0 ? DisabledEventIds.ToList() : null,
    };
}
