namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>Which sampler a trace's CPU figures come from; one is chosen per trace before anything is charged.</summary>
public enum CpuSourceKind
{
    /// <summary>EventPipe's SampleProfiler: managed stacks at safe points, weighted by the time since the thread's last sample (not on-CPU time).</summary>
    EventPipe,
    /// <summary>ETW kernel profile interrupts (Windows): on-CPU time, one interval per sample.</summary>
    EtwProfile,
    /// <summary>The Linux kernel session (perf cpu-clock): on-CPU time, one period per sample, managed, native and kernel frames.</summary>
    Perf,
}

internal static class CpuSourceKinds
{
    /// <summary>The name in JSON and CSV ("cpuSource"): "kernel" for both kernel samplers (on-CPU time), "eventpipe" for the managed sampler.</summary>
    public static string WireName(this CpuSourceKind kind) => kind == CpuSourceKind.EventPipe ? "eventpipe" : "kernel";

    public static bool IsOnCpu(this CpuSourceKind kind) => kind != CpuSourceKind.EventPipe;
}
