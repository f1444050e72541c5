namespace EtwSerializerProfiler.Common;

/// <summary>
/// Where the analyzer finds the graphs in a dump: static fields of one benchmark type, read by name with ClrMD.
/// The benchmark's HeapSnapshotRoots must keep these names; a test checks that it does.
/// </summary>
public static class HeapSnapshotRootNames
{
    public const string TypeName = "EtwSerializerProfiler.Benchmark.Runs.HeapSnapshotRoots";
    /// <summary>The graph the benchmark built and serialized.</summary>
    public const string OriginalField = "s_original";
    /// <summary>What the serializer returned for those bytes.</summary>
    public const string DeserializedField = "s_deserialized";
    /// <summary>A HeapSnapshotInfo as JSON: the dump describes itself, even without its trace folder.</summary>
    public const string InfoField = "s_info";
}
