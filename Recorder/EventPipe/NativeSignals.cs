namespace EtwSerializerProfiler.Recorder.EventPipe;

/// <summary>Signals to a launched child (RecordedRuntime.Interrupt), Unix only.</summary>
internal static partial class NativeSignals
{
    [System.Runtime.InteropServices.LibraryImport("libc", EntryPoint = "kill")]
    internal static partial int Kill(int pid, int signal);

    /// <summary>Whether the process ignores the signal (SigIgn in /proc/PID/status); false when that cannot be read.</summary>
    internal static bool Ignores(int pid, int signal)
    {
        try
        {
            foreach (var line in File.ReadLines($"/proc/{pid}/status"))
                if (line.StartsWith("SigIgn:", StringComparison.Ordinal))
                    return ulong.TryParse(line.AsSpan(7).Trim(), System.Globalization.NumberStyles.HexNumber, System.Globalization.CultureInfo.InvariantCulture, out var mask)
                        && (mask & (1UL << (signal - 1))) != 0;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { } // gone, or not ours to read: SIGINT as before
        return false;
    }
}
