// The esp tool's temp-folder housekeeping: .NET only (Common is also built for the .NET Framework benchmark, which has no use for it).
#if NET
using System.Diagnostics;
using System.Text.RegularExpressions;

namespace EtwSerializerProfiler.Common;

/// <summary>
/// Names of what esp leaves in the temp folder while it runs (diagnostic sockets, .etlx conversions, extracted zips,
/// the heap snapshot pipe) carry the owning process's id: <c>esp-PID-GUID...</c>. A process that was killed cannot
/// clean up after itself, so every esp run first removes the entries whose owner is gone.
/// </summary>
public static partial class EspTempFiles
{
    /// <summary>A new path in the temp folder owned by this process: <c>esp-PID-GUID</c> followed by <paramref name="suffix"/>.</summary>
    public static string NewPath(string suffix) =>
        Path.Combine(Path.GetTempPath(), $"esp-{Environment.ProcessId}-{Guid.NewGuid():N}{suffix}");

    /// <summary>Removes esp's temp entries whose owning process has ended; returns how many were removed.</summary>
    public static int SweepStale(string? folder = null)
    {
        folder ??= Path.GetTempPath();
        var removed = 0;
        IEnumerable<string> entries;
        try { entries = Directory.EnumerateFileSystemEntries(folder).ToList(); }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { return 0; }
        foreach (var path in entries)
        {
            if (OwnerOf(Path.GetFileName(path)) is not { } pid) continue;
            try
            {
                var info = new FileInfo(path);
                var time = info.Exists ? info.LastWriteTimeUtc : Directory.GetLastWriteTimeUtc(path);
                if (OwnerAlive(pid, time)) continue;
                if (Directory.Exists(path)) Directory.Delete(path, recursive: true); else File.Delete(path);
                removed++;
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { } // another esp got there first, or not ours to remove
        }
        return removed;
    }

    /// <summary>The owning process id of an esp temp entry's name, or null when the name is not esp's.</summary>
    public static int? OwnerOf(string name)
    {
        // Most of a temp folder is not esp's (nor are esp's set-up logs, esp-setup-*.log): a test of the prefix and
        // the first digit before the regex keeps its start-up (about 6 ms) off each run.
        var rest = name.AsSpan(name.StartsWith("CoreFxPipe_", StringComparison.Ordinal) ? "CoreFxPipe_".Length : 0);
        if (!rest.StartsWith("esp-", StringComparison.Ordinal)) return null;
        rest = rest["esp-".Length..];
        if (rest.StartsWith("heap-", StringComparison.Ordinal) || rest.StartsWith("perf-", StringComparison.Ordinal)) rest = rest[5..];
        if (rest.IsEmpty || !char.IsAsciiDigit(rest[0])) return null;
        var m = OwnedName().Match(name);
        return m.Success && int.TryParse(m.Groups[1].ValueSpan, out var pid) ? pid : null;
    }

    /// <summary>
    /// Whether the process that made an entry still runs. A process id is reused after its owner ends, so a process
    /// that started after the entry was last written is not its owner.
    /// </summary>
    public static bool OwnerAlive(int pid, DateTime entryTimeUtc)
    {
        if (pid == Environment.ProcessId) return true;
        try
        {
            using var p = Process.GetProcessById(pid);
            if (p.HasExited) return false;
            return p.StartTime.ToUniversalTime() <= entryTimeUtc.AddSeconds(2);
        }
        catch (Exception ex) when (ex is ArgumentException or InvalidOperationException or System.ComponentModel.Win32Exception or NotSupportedException)
        {
            return false;
        }
    }

    // esp-PID-GUID... (sockets, .etlx, zip folders), perf's control FIFOs' folder esp-perf-PID-GUID, and the heap
    // pipe's socket, CoreFxPipe_esp-heap-PID-GUID.
    [GeneratedRegex("^(?:CoreFxPipe_)?esp-(?:heap-|perf-)?([0-9]{1,9})-[0-9a-f]{32}", RegexOptions.CultureInvariant)]
    private static partial Regex OwnedName();
}
#endif
