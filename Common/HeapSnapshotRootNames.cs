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

    /// <summary>heap-System.Text.Json-200.dmp: one dump per serializer and size, named so a folder listing reads well.</summary>
    public static string DumpFileName(string serializer, int objects)
    {
        var safe = string.Concat(serializer.Select(c => char.IsLetterOrDigit(c) || c is '.' or '-' or '_' ? c : '_'));
        return $"heap-{safe}-{objects}.dmp";
    }
}
