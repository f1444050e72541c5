using System.Diagnostics.Tracing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Profiles;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using Microsoft.Diagnostics.Tracing.Session;

namespace EtwSerializerProfiler.Recorder.Etw;

/// <summary>Which sessions carry the kernel and the user providers.</summary>
public enum EtwSessionLayout
{
    /// <summary>
    /// One named session carries the kernel provider and the user providers (a system logger, Windows 8+): what
    /// `esp record` uses. The tool runs on .NET 10, which supports no Windows older than 10 / Server 2012, so the
    /// recorder never needs anything else.
    /// </summary>
    Combined,
    /// <summary>
    /// "NT Kernel Logger" plus a user session, merged afterwards: what the xperf, tracelog and WPR files start, because
    /// that is how those tools' kernel options (-on, -eflag, SystemCollector) work on every Windows version.
    /// </summary>
    KernelLoggerAndUserSession,
}

/// <summary>
/// Everything the ETW backend will enable, computed from a profile without touching ETW, so it can be checked on any OS.
/// The recorder, the tracelog/xperf scripts and the WPR profile are all rendered from this one plan.
/// </summary>
public sealed record EtwSessionPlan
{
    public const double DefaultCpuSampleIntervalMs = 1.0;
    /// <summary>The seed's advice for sessions of many minutes: a sample every 10 ms keeps the file a tenth of the size.</summary>
    public const double LongSessionCpuSampleIntervalMs = 10.0;

    public static readonly IReadOnlyList<string> RundownKeywordNames = ["Loader", "Jit", "NGen", "StopEnumeration", "ForceEndRundown"];

    public static readonly ulong RundownKeywords = (ulong)(
        ClrRundownTraceEventParser.Keywords.Loader | ClrRundownTraceEventParser.Keywords.Jit | ClrRundownTraceEventParser.Keywords.NGen
        | ClrRundownTraceEventParser.Keywords.StopEnumeration | ClrRundownTraceEventParser.Keywords.ForceEndRundown);

    public required string ProfileName { get; init; }
    public required string SessionName { get; init; }
    public required EtwSessionLayout Layout { get; init; }
    public IReadOnlyList<string> KernelKeywordNames { get; init; } = [];
    public KernelTraceEventParser.Keywords KernelKeywords { get; init; }
    public IReadOnlyList<string> KernelStackNames { get; init; } = [];
    public KernelTraceEventParser.Keywords KernelStackKeywords { get; init; }
    /// <summary>Null when the profile takes no CPU samples (no Profile kernel keyword).</summary>
    public double? CpuSampleIntervalMs { get; init; }
    /// <summary>User providers in enable order: the CLR first, so its rundown-free method events start early.</summary>
    public IReadOnlyList<EtwProviderPlan> Providers { get; init; } = [];
    /// <summary>
    /// Enabled while the recorded process is still alive, just before it exits (the benchmark waits for the recorder
    /// to say so), to name code that never fired a load event: precompiled (ReadyToRun, NGen) methods and modules.
    /// </summary>
    public required EtwProviderPlan Rundown { get; init; }
    /// <summary>Providers of the profile that only exist on EventPipe (the SampleProfiler).</summary>
    public IReadOnlyList<string> SkippedProviders { get; init; } = [];

    public string KernelSessionName => Layout == EtwSessionLayout.Combined ? SessionName : EtwSessionNames.NtKernelLogger;
    public bool HasKernel => KernelKeywords != KernelTraceEventParser.Keywords.None;

    public IReadOnlyList<string> XperfKernelGroups => KernelFlags.Distinct(KernelKeywordNames.Select(n => KernelFlags.Flag(n).XperfGroup));
    public IReadOnlyList<string> StackwalkNames => KernelStackNames.Select(n => KernelFlags.Stack(n).StackwalkName).ToList();

    /// <summary>What `esp record --backend etw` enables: always one combined session named after the recorder's process.</summary>
    public static EtwSessionPlan ForRecording(TraceProfile profile, int recorderProcessId) =>
        For(profile, EtwSessionNames.ForRecording(recorderProcessId), EtwSessionLayout.Combined);

    /// <summary>
    /// The rundown request for one process: EVENT_FILTER_TYPE_PID (Windows 8.1+) delivers the enable only to the
    /// provider registrations of that process, so no other .NET process on the machine runs a rundown into the trace.
    /// </summary>
    public TraceEventProviderOptions RundownOptions(int processId) => new() { ProcessIDFilter = [processId] };

    public static EtwSessionPlan For(TraceProfile profile, string sessionName, EtwSessionLayout layout = EtwSessionLayout.Combined, double? cpuSampleIntervalMs = null)
    {
        if (!EtwSessionNames.IsOurs(sessionName))
            throw new ArgumentException($"session names start with {EtwSessionNames.Prefix} so `esp cleanup` can find them", nameof(sessionName));
        var kernel = profile.Kernel ?? new KernelSpec();
        var flags = kernel.Keywords.Select(KernelFlags.Flag).ToList();
        var stacks = kernel.Stacks.Select(KernelFlags.Stack).ToList();
        var keywords = flags.Aggregate(KernelTraceEventParser.Keywords.None, (k, f) => k | f.Keyword);
        foreach (var s in stacks.Where(s => (keywords & s.Keyword) == 0))
            throw new UsageException($"profile '{profile.Name}': kernel stack '{s.Name}' needs its events enabled (add kernel keyword {KernelFlags.Flags.First(f => f.Keyword == s.Keyword).Name})");

        var samples = (keywords & KernelTraceEventParser.Keywords.Profile) != 0;
        var interval = cpuSampleIntervalMs ?? (profile.CpuSamplingMs > 0 ? profile.CpuSamplingMs : DefaultCpuSampleIntervalMs);
        if (samples && interval < 0.125)
            throw new UsageException($"CPU sampling every {interval} ms is below the kernel's lower bound of 0.125 ms");

        return new EtwSessionPlan
        {
            ProfileName = profile.Name,
            SessionName = sessionName,
            Layout = layout,
            KernelKeywordNames = flags.Select(f => f.Name).ToList(),
            KernelKeywords = keywords,
            KernelStackNames = stacks.Select(s => s.Name).ToList(),
            KernelStackKeywords = stacks.Aggregate(KernelTraceEventParser.Keywords.None, (k, s) => k | s.Keyword),
            CpuSampleIntervalMs = samples ? interval : null,
            Providers = profile.Providers.Where(p => !p.EventPipeOnly).Select(ToPlan).ToList(),
            Rundown = new EtwProviderPlan
            {
                Name = KeywordNames.RundownProvider,
                Guid = ProviderGuids.Rundown,
                Keywords = RundownKeywords,
                KeywordNames = RundownKeywordNames,
                Level = EventLevel.Verbose,
            },
            SkippedProviders = profile.Providers.Where(p => p.EventPipeOnly).Select(p => p.Name).ToList(),
        };
    }

    private static EtwProviderPlan ToPlan(ProviderSpec p) => new()
    {
        Name = p.Name,
        Guid = ProviderGuids.For(p.Name),
        Keywords = unchecked((ulong)p.KeywordMask), // -1 (no keywords listed) = every keyword
        KeywordNames = p.Keywords,
        Level = p.Level,
        StackEventIds = p.Etw?.StackEventIds ?? [],
        DisabledEventIds = p.Etw?.DisabledEventIds ?? [],
    };
}
