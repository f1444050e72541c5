namespace EtwSerializerProfiler.Common;

/// <summary>
/// Where perf is: the recorder runs it to record, the analyzer to name native frames again with a symbol folder
/// (`esp analyze --symbols`). One lookup, so both find the same perf.
/// </summary>
public static class PerfTool
{
    /// <summary>ESP_PERF=/path/to/perf picks a perf that is not on PATH (a distribution's versioned linux-tools path).</summary>
    public const string PerfVariable = "ESP_PERF";

    /// <summary>perf's path, or null when it is not installed (or ESP_PERF names a file that does not exist).</summary>
    public static string? Locate() =>
        Environment.GetEnvironmentVariable(PerfVariable) is { Length: > 0 } explicitPath
            ? File.Exists(explicitPath) ? explicitPath : null
            : FindOnPath("perf");

    /// <summary>Why <see cref="Locate"/> found nothing, and how to fix it, in one phrase.</summary>
    public static string NotFoundReason() =>
        $"perf is not installed ({(Environment.GetEnvironmentVariable(PerfVariable) is { Length: > 0 } p ? $"{PerfVariable}={p} does not exist" : "Debian/Ubuntu: apt-get install linux-perf")})";

    public static string? FindOnPath(string name)
    {
        foreach (var dir in (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator))
        {
            if (dir.Length == 0) continue;
            var candidate = Path.Combine(dir, name);
            if (File.Exists(candidate)) return candidate;
        }
        return null;
    }
}
