using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.Kernel;

/// <summary>No kernel session (--kernel off, no perf, a profile without kernel events): the manifest's "kernel" says why.</summary>
public sealed class KernelSessionOff(KernelSessionInfo why) : IRecordingParticipant
{
    public Task<TraceManifest> ManifestAsync(TraceManifest manifest) => Task.FromResult(manifest with { Kernel = why });
}
