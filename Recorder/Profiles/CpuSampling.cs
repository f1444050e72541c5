using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.Profiles;

/// <summary>
/// The CPU sampler's interval for one recording: --cpu-sample-ms when given, else the profile's, except on a Linux
/// virtual machine, where a profile may ask for a longer one (virtualMachineCpuSamplingMs). There perf's cpu-clock
/// sample cost about 20 µs (2.4% of a case's CPU at 1 ms, docs/recorder.md#the-sampler-alone). EventPipe's own
/// sampler has a fixed 1 ms interval whatever this says.
/// </summary>
public static class CpuSampling
{
    /// <summary>The profile with the interval this recording samples at, and a line saying why when it is not the profile's own.</summary>
    public static (TraceProfile Profile, string? Why) Resolve(TraceProfile profile, double? requestedMs, bool linuxVirtualMachine)
    {
        if (requestedMs is { } ms)
            return (profile with { CpuSamplingMs = ms },
                ms == profile.CpuSamplingMs ? null : Invariant($"CPU samples every {ms} ms (--cpu-sample-ms; the profile's: {Describe(profile.CpuSamplingMs)})"));
        if (linuxVirtualMachine && profile.CpuSamplingMs > 0 && profile.VirtualMachineCpuSamplingMs is { } vm && vm != profile.CpuSamplingMs)
            return (profile with { CpuSamplingMs = vm },
                Invariant($"CPU samples every {vm} ms: a virtual machine, where each costs more ({profile.CpuSamplingMs} ms on bare metal; --cpu-sample-ms sets it)"));
        return (profile, null);
    }

    private static string Describe(double ms) => ms > 0 ? Invariant($"{ms} ms") : "off";

    private static string Invariant(FormattableString text) => FormattableString.Invariant(text);
}
