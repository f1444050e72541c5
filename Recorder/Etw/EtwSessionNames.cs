namespace EtwSerializerProfiler.Recorder.Etw;

/// <summary>
/// ETW sessions outlive the process that started them (a killed recorder leaves one running), so every session this
/// tool starts carries one prefix: `esp cleanup` stops exactly those and nothing else on the machine.
/// </summary>
public static class EtwSessionNames
{
    public const string Prefix = "EtwSerializerProfiler-";

    /// <summary>The classic kernel session the xperf/tracelog scripts start; shared machine-wide, so never stopped by cleanup.</summary>
    public const string NtKernelLogger = "NT Kernel Logger";

    public static string ForRecording(int recorderProcessId) => $"{Prefix}{recorderProcessId}";

    public static bool IsOurs(string sessionName) => sessionName.StartsWith(Prefix, StringComparison.Ordinal);

    /// <summary>Sessions started by this tool among the machine's active session names.</summary>
    public static IReadOnlyList<string> Ours(IEnumerable<string> activeSessionNames) => activeSessionNames.Where(IsOurs).Order(StringComparer.Ordinal).ToList();
}
