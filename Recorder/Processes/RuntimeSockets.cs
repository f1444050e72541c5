using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.Processes;

/// <summary>
/// Every .NET process listens on <c>dotnet-diagnostic-PID-KEY-socket</c> in the temp folder and removes it when it
/// exits, which a killed process cannot do. When esp is killed mid-recording, both esp and (through the parent-death
/// signal) its child are killed: their sockets are handed to the exit janitor with esp's own temp entries.
/// </summary>
public static class RuntimeSockets
{
    /// <summary>Call once the child's runtime is up (it has connected to esp's port, so its socket exists).</summary>
    public static void DeleteOnExit(LaunchedProcess child)
    {
        ArgumentNullException.ThrowIfNull(child);
        // A child that outlives esp keeps its socket: it is still in use.
        if (OperatingSystem.IsWindows() || !child.DiesWithEsp) return;
        ExitJanitor.DeleteOnExit([.. Of(Environment.ProcessId), .. Of(child.Process.Id)]);
    }

    /// <summary>Exact names (the key is the process's start time), so a later process reusing the id is never touched.</summary>
    public static IEnumerable<string> Of(int pid)
    {
        try
        {
            return Directory.EnumerateFiles(Path.GetTempPath(), $"dotnet-diagnostic-{pid}-*-socket").ToList();
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return [];
        }
    }
}
