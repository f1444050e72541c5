using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>
/// The GC roots a heap snapshot is read through: the original graph and the deserialized one in two distinguishable
/// static fields (names in <see cref="HeapSnapshotRootNames"/>), plus a description of the snapshot point. The
/// analyzer walks each graph from its field, so nothing else in the process is mistaken for either graph.
/// </summary>
public static class HeapSnapshotRoots
{
    // Read by name from the dump (ClrMD); written only here. Private: nothing in the benchmark reads them.
    private static object? s_original;
    private static object? s_deserialized;
    private static string? s_info;

    public static bool IsHolding => s_deserialized is not null;

    public static void Hold(object original, object deserialized)
    {
        s_original = original;
        s_deserialized = deserialized;
    }

    /// <summary>Set after the in-process measurement, so this string is not counted in it.</summary>
    public static void Describe(HeapSnapshotInfo info) => s_info = HeapSnapshotProtocol.Serialize(info);

    public static void Release()
    {
        s_original = null;
        s_deserialized = null;
        s_info = null;
    }
}
