using System.ComponentModel;

namespace EtwSerializerProfiler.Recorder.Processes;

/// <summary>
/// Finds a program the way Process.Start does on Unix (a rooted path as given; else the host executable's folder,
/// the current folder, then PATH for an executable file), so a program started through a wrapper (setpriv) fails
/// with the same error, worded the same, as one started directly.
/// </summary>
internal static class ExecutableResolver
{
    private const int NoSuchFile = 2;      // ENOENT
    private const int PermissionDenied = 13; // EACCES

    public static string Resolve(string fileName)
    {
        var path = Find(fileName) ?? throw Failure(fileName, NoSuchFile);
        if (!IsExecutable(path)) throw Failure(fileName, File.Exists(path) ? PermissionDenied : NoSuchFile);
        return path;
    }

    private static string? Find(string fileName)
    {
        if (Path.IsPathRooted(fileName)) return fileName;
        if (Path.GetDirectoryName(Environment.ProcessPath) is { } hostDir && Path.Combine(hostDir, fileName) is var beside && File.Exists(beside)) return beside;
        if (Path.Combine(Directory.GetCurrentDirectory(), fileName) is var here && File.Exists(here)) return here;
        return (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Select(dir => Path.Combine(dir, fileName)).FirstOrDefault(IsExecutable);
    }

    private static bool IsExecutable(string path) =>
        File.Exists(path) && (OperatingSystem.IsWindows()
            || (File.GetUnixFileMode(path) & (UnixFileMode.UserExecute | UnixFileMode.GroupExecute | UnixFileMode.OtherExecute)) != 0);

    /// <summary>Process.Start's own wording, so `esp record` says what it always said.</summary>
    private static Win32Exception Failure(string fileName, int errno) =>
        new(errno, $"An error occurred trying to start process '{fileName}' with working directory '{Directory.GetCurrentDirectory()}'. {new Win32Exception(errno).Message}");
}
