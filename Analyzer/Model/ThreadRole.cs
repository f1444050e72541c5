namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// What a thread of the process that is not one of a run's workers does, from the name it gave itself (perf's comm,
/// <c>Kernel/OtherThreadsCpu.RoleOf</c>). Written by its <see cref="WireNameAttribute"/> (JSON's
/// <c>otherThreadsCpuByRole</c> keys, the tables, the finding).
/// </summary>
public enum ThreadRole
{
    /// <summary>The GC's own threads: background GC (".NET BGC"), and server GC's (".NET Server GC").</summary>
    [WireName("background GC")] Gc,
    /// <summary>Tiered compilation's background worker (".NET Tiered Com"): rejits, call counting.</summary>
    [WireName("JIT (tiering)")] Jit,
    [WireName("finalizer")] Finalizer,
    /// <summary>The tracer inside the process: EventPipe's streaming and sampler threads, the diagnostics server.</summary>
    [WireName("tracer")] Tracer,
    /// <summary>Everything else: the run marker, the thread pool, the app's own threads.</summary>
    [WireName("other")] Other,
}

