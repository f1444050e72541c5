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

/// <summary>Roles by their figures.</summary>
internal static class ThreadRoles
{
    public static readonly ThreadRole[] All = Enum.GetValues<ThreadRole>();

    /// <summary>
    /// Sorts <paramref name="roles"/> largest first, ties in their order (a stable sort, as LINQ's OrderByDescending).
    /// A loop over a list, not LINQ: LINQ over tuples of an enum is JIT code in the ReadyToRun build.
    /// </summary>
    public static List<(ThreadRole Role, double Ms)> LargestFirst(List<(ThreadRole Role, double Ms)> roles)
    {
        for (var i = 1; i < roles.Count; i++)
        {
            var role = roles[i];
            var j = i - 1;
            for (; j >= 0 && roles[j].Ms < role.Ms; j--) roles[j + 1] = roles[j];
            roles[j + 1] = role;
        }
        return roles;
    }
}
