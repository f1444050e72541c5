// The esp tool's temp-folder housekeeping: .NET only (Common is also built for the .NET Framework benchmark, which has no use for it).
#if NET
using System.Diagnostics;
using System.Globalization;

namespace EtwSerializerProfiler.Common;

/// <summary>
/// Names of what esp leaves in the temp folder while it runs (diagnostic sockets, .etlx conversions, extracted zips,
/// the heap snapshot pipe) carry the owning process's id: <c>esp-PID-GUID...</c>. A process that was killed cannot
/// clean up after itself, so every esp run first removes the entries whose owner is gone.
/// </summary>
public static class EspTempFiles
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

    /// <summary>
    /// The owning process id of an esp temp entry's name, or null when the name is not esp's: esp-PID-GUID...
    /// (sockets, .etlx, zip folders), perf's control FIFOs' folder esp-perf-PID-GUID, and the heap pipe's socket,
    /// CoreFxPipe_esp-heap-PID-GUID (GUID: 32 lowercase hex digits). Read by hand: a regex's first use cost about
    /// 6 ms of every run's start.
    /// </summary>
    public static int? OwnerOf(string name)
    {
        var rest = name.AsSpan(name.StartsWith("CoreFxPipe_", StringComparison.Ordinal) ? "CoreFxPipe_".Length : 0);
        if (!rest.StartsWith("esp-", StringComparison.Ordinal)) return null;
        rest = rest["esp-".Length..];
        if (rest.StartsWith("heap-", StringComparison.Ordinal) || rest.StartsWith("perf-", StringComparison.Ordinal)) rest = rest[5..];
        var digits = 0;
        while (digits < rest.Length && char.IsAsciiDigit(rest[digits])) digits++;
        if (digits is 0 or > 9 || rest.Length < digits + 1 + 32 || rest[digits] != '-') return null;
        foreach (var c in rest.Slice(digits + 1, 32))
            if (!char.IsAsciiHexDigitLower(c)) return null;
        return int.Parse(rest[..digits], CultureInfo.InvariantCulture);
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
}
#endif
