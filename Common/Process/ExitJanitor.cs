// The esp tool's temp-folder housekeeping: .NET only (Common is also built for the .NET Framework benchmark, which has no use for it).
#if NET
using System.Diagnostics;

namespace EtwSerializerProfiler.Common;

/// <summary>
/// Removes temp entries when this process ends, however it ends: SIGKILL runs no finally block and no exit handler.
/// A small <c>/bin/sh</c> child reads paths on its standard input; when esp ends, the kernel closes esp's end of the
/// pipe, the shell sees end of file and removes what it was given. It ignores the terminal's Ctrl+C (that reaches the
/// whole process group) so it outlives esp's own clean shutdown. Normal cleanup still happens in esp itself; this is
/// the backstop. Unix only (Windows removes named pipes with their process, and this project's temp files are swept
/// by <see cref="EspTempFiles.SweepStale"/> on the next run).
/// </summary>
public static class ExitJanitor
{
    // Paths arrive one per line and are kept in a list file (itself an esp temp entry, so swept if the janitor dies);
    // at end of file each is removed ("rm -rf": an extracted zip is a folder), through xargs when there is one, since a
    // long-lived esp (a test run) hands over thousands. Output goes nowhere: holding esp's stdout open would keep a
    // reader of esp's output waiting.
    private const string Script = "exec >/dev/null 2>&1; trap '' INT HUP TERM PIPE; cat > \"$1\"; "
        + "if command -v xargs >/dev/null; then tr '\\n' '\\0' < \"$1\" | xargs -0 rm -rf --; else while IFS= read -r p; do rm -rf -- \"$p\"; done < \"$1\"; fi; "
        + "rm -f -- \"$1\"";
#if NET9_0_OR_GREATER
    private static readonly Lock s_lock = new();
#else
    private static readonly object s_lock = new(); // the benchmark's net8.0 build (esp record --runtime 8.0): no Lock type
#endif
    private static Process? s_shell;
    private static bool s_unavailable;

    /// <summary>Whether a janitor process is running for this process (false off Unix or without /bin/sh).</summary>
    public static bool Running
    {
        get { lock (s_lock) return s_shell is { HasExited: false }; }
    }

    /// <summary>Removes <paramref name="paths"/> when this process ends. Only entries directly in the temp folder are accepted.</summary>
    public static void DeleteOnExit(params IEnumerable<string> paths)
    {
        var temp = Path.TrimEndingDirectorySeparator(Path.GetFullPath(Path.GetTempPath()));
        var list = paths.Select(Path.GetFullPath).ToList();
        foreach (var p in list)
        {
            // The shell removes recursively: never hand it anything but a temp entry of ours.
            if (!string.Equals(Path.GetDirectoryName(p), temp, StringComparison.Ordinal) || p.Contains('\n', StringComparison.Ordinal))
                throw new ArgumentException($"{p}: the exit janitor only removes entries directly in {temp}", nameof(paths));
        }
        if (OperatingSystem.IsWindows()) return;
        lock (s_lock)
        {
            if (!EnsureStarted()) return;
            try
            {
                foreach (var p in list) s_shell!.StandardInput.WriteLine(p);
                s_shell!.StandardInput.Flush();
            }
            catch (IOException) { } // the janitor was killed: the next run's sweep removes what is left
        }
    }

    private static bool EnsureStarted()
    {
        if (s_shell is { HasExited: false }) return true;
        if (s_unavailable || !File.Exists("/bin/sh")) { s_unavailable = true; return false; }
        var psi = new ProcessStartInfo("/bin/sh") { UseShellExecute = false, RedirectStandardInput = true };
        psi.ArgumentList.Add("-c");
        psi.ArgumentList.Add(Script);
        psi.ArgumentList.Add("esp-exit-janitor");
        psi.ArgumentList.Add(EspTempFiles.NewPath(".janitor"));
        try
        {
            // .NET opens its pipes close-on-exec, so no other child inherits the write end and keeps the janitor waiting.
            s_shell = Process.Start(psi);
            s_shell!.StandardInput.NewLine = "\n";
            return true;
        }
        catch (System.ComponentModel.Win32Exception)
        {
            s_unavailable = true;
            return false;
        }
    }
}
#endif
