namespace EtwSerializerProfiler.Common;

/// <summary>manifest.json's "kernel": what the kernel session recorded, what it could not, and where the data is.</summary>
public sealed record KernelSessionInfo
{
    public const string Recorded = "recorded";
    public const string NotRecorded = "not recorded";

    /// <summary>"recorded" or "not recorded" (then <see cref="Reason"/> says why).</summary>
    public required string Status { get; init; }
    public string? Reason { get; init; }
    /// <summary>"perf 6.1.187".</summary>
    public string? Tool { get; init; }
    public string? CommandLine { get; init; }
    /// <summary>The clock perf stamped events with: EventPipe's on Linux, so both traces share one time line.</summary>
    public string? Clock { get; init; }
    public long? CpuSamplePeriodNs { get; init; }
    public List<string> Events { get; init; } = [];
    /// <summary>Each recorded event in the design's terms (CPU samples with stacks, context switches, wake-ups).</summary>
    public List<string> Records { get; init; } = [];
    /// <summary>What the profile asked for that perf refused, with perf's reason.</summary>
    public List<string> Missing { get; init; } = [];
    public string? DataFile { get; init; }
    public long? DataBytes { get; init; }
    /// <summary>`perf script` output (gzip) the analyzer reads; no perf needed to analyze.</summary>
    public string? ScriptFile { get; init; }
    public long? ScriptBytes { get; init; }
    public long? LostChunks { get; init; }
    /// <summary>perf ended on its own while the recorded process ran: when and how. Null when it ran to the end.</summary>
    public KernelSessionDeath? Died { get; init; }
    /// <summary>
    /// Native modules whose frames perf could not name (no symbols where perf looks), with the build id their debug
    /// file is found by: what to fetch for `esp analyze --symbols DIR` (docs/analyzer.md#native-symbols).
    /// Null in manifests written before it existed (read back and written again, they stay the same bytes).
    /// </summary>
    public List<UnnamedNativeModule>? UnnamedNativeModules { get; init; }
    /// <summary>
    /// CPU time the hypervisor took from this machine while the session recorded (<see cref="HostSteal"/>), in ms:
    /// on-CPU time from context switches counts it, the thread CPU clock does not. Null where the OS does not say,
    /// and in manifests written before it existed.
    /// </summary>
    public double? HostStealMs { get; init; }
    /// <summary>perf's own CPU time while it recorded, in seconds (the tracer's cost to the machine); null where not read.</summary>
    public double? PerfCpuSeconds { get; init; }

    public static KernelSessionInfo Off(string reason) => new() { Status = NotRecorded, Reason = reason };
}

/// <summary>A native module perf left frames unnamed in: its path, build id, and the CPU samples ending in it.</summary>
public sealed record UnnamedNativeModule
{
    public required string Path { get; init; }
    public required string BuildId { get; init; }
    /// <summary>CPU samples whose innermost frame is in the module.</summary>
    public long LeafSamples { get; init; }
    /// <summary>Of those, the ones perf could not name.</summary>
    public long UnnamedLeafSamples { get; init; }
}
