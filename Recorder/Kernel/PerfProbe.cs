using System.Diagnostics;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.Kernel;

/// <summary>What perf_events will give this user on this machine: the events it accepted and why others are missing.</summary>
public sealed record PerfAvailability(string? PerfPath, string? Version, IReadOnlyList<PerfEvent> Accepted, IReadOnlyList<string> Missing)
{
    public bool Usable => PerfPath is not null && Accepted.Count > 0;

    /// <summary>
    /// The options every `perf record` gets from this perf. From 5.1 on, perf records BPF program loads from a side-band
    /// thread that polls once a second, so each recording lasts at least 1 s and stops up to 1 s late (measured here,
    /// perf 6.1: `perf record -- true` 1.2 s, 0.4 s with --no-bpf-event). esp names no BPF code.
    /// </summary>
    public IReadOnlyList<string> RecordOptions => PerfProbe.RecordOptions(Version);
}

/// <summary>
/// Asks perf itself rather than guessing from perf_event_paranoid: a container, a seccomp profile or a missing
/// tracefs refuse events that the sysctl would allow. All events are tried at once on `true` (0.4 s here), then one by one if refused.
/// </summary>
public static class PerfProbe
{
    public static PerfAvailability Check(IReadOnlyList<PerfEvent> wanted)
    {
        if (!OperatingSystem.IsLinux()) return new(null, null, [], ["perf_events exist on Linux only"]);
        var perf = PerfTool.Locate();
        if (perf is null) return new(null, null, [], [PerfTool.NotFoundReason()]);
        var version = Run(perf, ["--version"], out var versionText) == 0 ? versionText.Trim().Replace("perf version ", "", StringComparison.Ordinal) : null;
        var accepted = new List<PerfEvent>();
        var missing = new List<string>();
        var options = RecordOptions(version);
        // Usually everything is allowed, and one try says so; only a refusal costs a try per event.
        if (TryRecord(perf, options, wanted, out _)) accepted.AddRange(wanted);
        else
            foreach (var e in wanted)
            {
                if (TryRecord(perf, options, [e], out var why)) accepted.Add(e);
                else missing.Add($"{e.Name}: {why}");
            }
        if (accepted.Any(e => e.Name == PerfRecording.CpuClock) && KernelFramesHidden())
            missing.Add("kernel frames in CPU samples: perf_event_paranoid > 1 for a non-root user hides them (user-space samples only)");
        return new(perf, version, accepted, missing);
    }

    /// <summary>See <see cref="PerfAvailability.RecordOptions"/>: --no-bpf-event where perf knows it (5.1 and later).</summary>
    public static IReadOnlyList<string> RecordOptions(string? version)
    {
        var known = version is null ? null : System.Text.RegularExpressions.Regex.Match(version, @"^\d+\.\d+");
        return known is { Success: true } && Version.Parse(known.Value) >= new Version(5, 1) ? ["--no-bpf-event"] : [];
    }

    private static bool TryRecord(string perf, IReadOnlyList<string> options, IReadOnlyList<PerfEvent> events, out string why)
    {
        var output = Path.Combine(Path.GetTempPath(), $"esp-perf-probe-{Environment.ProcessId}-{Guid.NewGuid():N}.data");
        try
        {
            List<string> args = ["record", "-q", "-k", Common.PerfRecording.Clock, .. options];
            foreach (var e in events) args.AddRange(["-e", e.Spec]);
            args.AddRange(["-o", output, "--", "true"]);
            var ok = Run(perf, args, out var text) == 0;
            why = ok ? "" : Reason(text);
            return ok;
        }
        finally { File.Delete(output); File.Delete(output + ".old"); }
    }

    /// <summary>The first line perf printed that says what went wrong, without its usage text.</summary>
    private static string Reason(string perfOutput)
    {
        var lines = perfOutput.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        var line = lines.FirstOrDefault(l => l.StartsWith("Error", StringComparison.OrdinalIgnoreCase) && l.Length > 6)
            ?? lines.FirstOrDefault(l => l.Contains("permission", StringComparison.OrdinalIgnoreCase) || l.Contains("can't access", StringComparison.OrdinalIgnoreCase))
            ?? lines.FirstOrDefault() ?? "refused";
        return line.Replace("Error:", "", StringComparison.Ordinal).Trim();
    }

    private static bool KernelFramesHidden()
    {
        if (Environment.UserName == "root") return false;
        try { return int.Parse(File.ReadAllText("/proc/sys/kernel/perf_event_paranoid").Trim(), System.Globalization.CultureInfo.InvariantCulture) > 1; }
        catch (Exception ex) when (ex is IOException or FormatException or UnauthorizedAccessException) { return false; }
    }

    /// <summary>ESP_PERF=/path/to/perf picks a perf that is not on PATH (<see cref="PerfTool"/>).</summary>
    public const string PerfVariable = PerfTool.PerfVariable;

    private static int Run(string file, IReadOnlyList<string> args, out string output)
    {
        var psi = new ProcessStartInfo(file) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var a in args) psi.ArgumentList.Add(a);
        using var p = Process.Start(psi)!;
        var stderr = p.StandardError.ReadToEndAsync();
        var stdout = p.StandardOutput.ReadToEnd();
        if (!p.WaitForExit(15_000)) { p.Kill(); output = "perf did not answer within 15 s"; return -1; }
        output = stdout + stderr.Result;
        return p.ExitCode;
    }
}
