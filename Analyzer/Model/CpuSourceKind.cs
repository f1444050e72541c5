namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// Which sampler a trace's CPU figures come from; one is chosen per trace before anything is charged. Written
/// ("cpuSource") by its <see cref="WireNameAttribute"/>: "kernel" for both kernel samplers, because what a reader needs
/// to know is what the figure means (on-CPU time), and that is the same; "eventpipe" for the managed sampler.
/// </summary>
public enum CpuSourceKind
{
    /// <summary>EventPipe's SampleProfiler: managed stacks at safe points, weighted by the time since the thread's last sample (not on-CPU time).</summary>
    [WireName("eventpipe")] EventPipe,
    /// <summary>ETW kernel profile interrupts (Windows): on-CPU time, one interval per sample.</summary>
    [WireName("kernel")] EtwProfile,
    /// <summary>The Linux kernel session (perf cpu-clock): on-CPU time, one period per sample, managed, native and kernel frames.</summary>
    [WireName("kernel")] Perf,
}

internal static class CpuSourceKinds
{

    public static bool IsOnCpu(this CpuSourceKind kind) => kind != CpuSourceKind.EventPipe;
}
