namespace EtwSerializerProfiler.Analyzer.StackTags;

/// <summary>
/// The code that measures rather than is measured: the benchmark's run loop, worker crew and verification, and the
/// run markers library. Its stack tag is "Test Infrastructure" (SerializerStackTagsGenerator builds the entries from
/// <see cref="Namespaces"/>), and findings leave it out: a lock the benchmark's own worker crew waits on is not the
/// serializer's contention (a 64-thread run once charged System.Text.Json.SourceGen with WorkerCrew.Run's lock).
/// </summary>
internal static class HarnessCode
{
    public static readonly IReadOnlyList<string> Namespaces =
    [
        "EtwSerializerProfiler.Benchmark.Runs",
        "EtwSerializerProfiler.Benchmark.Verification",
        "EtwSerializerProfiler.RunMarkers",
    ];

    /// <summary>Whether a method ("Namespace.Type.Method", <see cref="StackFrame.MethodName"/>) is in one of the harness's <see cref="Namespaces"/>.</summary>
    public static bool IsHarnessMethod(string method)
    {
        foreach (var ns in Namespaces)
            if (method.StartsWith(ns, StringComparison.Ordinal) && method.Length > ns.Length && method[ns.Length] == '.')
                return true;
        return false;
    }
}
