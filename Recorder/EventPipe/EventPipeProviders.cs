using EtwSerializerProfiler.Recorder.Profiles;
using Microsoft.Diagnostics.NETCore.Client;

namespace EtwSerializerProfiler.Recorder.EventPipe;

/// <summary>The EventPipe rendering of a profile: ETW-only filters and the kernel part do not apply.</summary>
public static class EventPipeProviders
{
    public static IReadOnlyList<EventPipeProvider> For(TraceProfile profile) =>
        profile.Providers
            .Where(p => profile.CpuSamplingMs > 0 || !p.Name.Equals(KeywordNames.SampleProfilerProvider, StringComparison.OrdinalIgnoreCase))
            .Select(p => new EventPipeProvider(p.Name, p.Level, p.KeywordMask))
            .ToList();
}
