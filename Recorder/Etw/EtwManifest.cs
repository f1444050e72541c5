using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.Etw;

/// <summary>What an ETW recording adds to manifest.json: backend, kernel flags, sampling interval and session names.</summary>
public static class EtwManifest
{
    public const string Backend = TraceManifest.EtwBackend;

    public static TraceManifest Apply(TraceManifest manifest, EtwSessionPlan plan) => manifest with
    {
        Backend = Backend,
        Providers = plan.Providers.Select(p => new ManifestProvider(p.Name, $"0x{p.Keywords:X}", p.Level.ToString(), p.KeywordNames)).ToList(),
        CpuSamplingMs = plan.CpuSampleIntervalMs,
        CpuSamplingNote = plan.CpuSampleIntervalMs is { } ms
            ? $"ETW kernel profile interrupts every {ms} ms (TraceEventSession.CpuSampleIntervalMSec); each sample weighs {ms} ms of CPU"
            : "CPU sampling off in this profile (no Profile kernel keyword)",
        KernelKeywords = plan.KernelKeywordNames.ToList(),
        KernelFlags = $"0x{(long)plan.KernelKeywords:X}",
        KernelStacks = plan.KernelStackNames.ToList(),
        EtwSessions = plan.Layout == EtwSessionLayout.Combined ? [plan.SessionName] : [plan.KernelSessionName, plan.SessionName],
        TraceFile = TraceFolderLayout.Etl,
        Dropped = plan.SkippedProviders.Select(p => $"{p}: EventPipe only; ETW samples CPU with kernel profile interrupts instead").ToList(),
    };
}
