using EtwSerializerProfiler.Recorder.Profiles;
using Microsoft.Diagnostics.NETCore.Client;

namespace EtwSerializerProfiler.Recorder.EventPipe;

/// <summary>The EventPipe rendering of a profile: ETW-only filters and the kernel part do not apply.</summary>
public static class EventPipeProviders
{
    /// <param name="kernelSamplesCpu">A kernel session samples the CPU: providers the profile marks as replaced by it are left out.</param>
    /// <param name="sampler">--eventpipe-samples: forces EventPipe's SampleProfiler on or off; null = the profile's rule.</param>
    public static IReadOnlyList<EventPipeProvider> For(TraceProfile profile, bool kernelSamplesCpu = false, bool? sampler = null) =>
        profile.Providers
            .Where(p => !IsSampler(p) || (sampler ?? (profile.CpuSamplingMs > 0 && !(kernelSamplesCpu && p.ReplacedByKernelSampling))))
            .Where(p => IsSampler(p) || !(kernelSamplesCpu && p.ReplacedByKernelSampling))
            .Select(p => new EventPipeProvider(p.Name, p.Level, p.KeywordMask))
            .ToList();

    private static bool IsSampler(ProviderSpec p) => p.Name.Equals(KeywordNames.SampleProfilerProvider, StringComparison.OrdinalIgnoreCase);
}
