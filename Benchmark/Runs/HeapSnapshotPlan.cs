using EtwSerializerProfiler.Benchmark.Serializers;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>
/// What --heap asked for: which serializers, which size, and (set by `esp record`) the recorder's pipe and how long
/// to wait for it. Validated up front so a typo fails before minutes of benchmarking, not at the snapshot point.
/// </summary>
public sealed record HeapSnapshotPlan(IReadOnlyList<Serializer> Serializers, int Objects, string? Pipe, TimeSpan Timeout)
{
    public bool Wants(Serializer serializer, int count) => count == Objects && Serializers.Contains(serializer);

    public static HeapSnapshotPlan? Parse(ArgReader r, BenchmarkOptions options)
    {
        var names = r.List("heap");
        var objects = r.Has("heap-objects") ? r.Int("heap-objects", 0, min: 0) : (int?)null;
        var pipe = r.String(BenchmarkArgs.HeapPipe);
        var timeoutSeconds = r.Has(BenchmarkArgs.HeapTimeout) ? r.Int(BenchmarkArgs.HeapTimeout, 0, min: 1) : (int?)null;
        if (names.Count == 0)
        {
            if (objects is not null || pipe is not null || timeoutSeconds is not null)
                throw new UsageException("--heap-objects, --heap-pipe and --heap-timeout need --heap SERIALIZERS");
            return null;
        }
        if (options.Test == TestMode.FirstCall)
            throw new UsageException("--heap snapshots a steady-state deserialize: it cannot be combined with --test firstcall");
        var serializers = SerializerCatalog.Select(names);
        if (options.Serializers.Count > 0 && serializers.FirstOrDefault(s => !options.Serializers.Contains(s)) is { } missing)
            throw new UsageException($"--heap {missing.Name}: not among --serializers ({string.Join(", ", options.Serializers)})");
        var n = objects ?? options.Counts.FirstOrDefault();
        if (options.Counts.Count > 0 && !options.Counts.Contains(n))
            throw new UsageException($"--heap-objects {n} must be one of the --n sizes ({string.Join(", ", options.Counts)}): the snapshot reuses that size's data and bytes");
        var timeout = timeoutSeconds is { } t
            ? TimeSpan.FromSeconds(t)
            : HeapSnapshotProtocol.DefaultDumpTimeout + HeapSnapshotProtocol.BenchmarkWaitMargin;
        return new HeapSnapshotPlan(serializers, n, pipe, timeout);
    }
}
