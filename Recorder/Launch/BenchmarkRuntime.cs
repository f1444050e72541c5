using System.Runtime.InteropServices;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.Launch;

/// <summary>
/// `esp record --runtime 8.0|9.0|10.0` (or an exact patch, `8.0.31`): the .NET runtime the benchmark runs on. The
/// benchmark builds for net8.0, net9.0 and net10.0; the SDK's own runtime (the tool's major.minor) is the default
/// build next to the tool, any other is published self-contained from its runtime pack (<see cref="RuntimePublish"/>).
/// </summary>
public sealed record BenchmarkRuntime(string Requested, int Major, string? ExactVersion)
{
    /// <summary>The majors the benchmark targets (Benchmark.csproj's TargetFrameworks, .NET Framework aside).</summary>
    public static readonly int[] Majors = [8, 9, 10];

    public string TargetFramework => $"net{Major}.0";

    /// <summary>The runtime esp itself runs on, whose build of the benchmark is next to the tool.</summary>
    public static int ToolMajor => Environment.Version.Major;

    /// <summary>Whether the default build (framework-dependent, on the SDK's runtime) is this runtime: nothing to publish.</summary>
    public bool IsToolRuntime => Major == ToolMajor && ExactVersion is null;

    public static BenchmarkRuntime Parse(string text)
    {
        var parts = text.Trim().Split('.');
        var usage = $"--runtime must be {string.Join(", ", Majors.Select(m => $"{m}.0"))} or an exact version such as 8.0.31, got '{text}'";
        if (parts.Length is < 2 or > 3 || parts.Any(p => p.Length == 0 || !p.All(char.IsAsciiDigit)) || parts[1] != "0")
            throw new UsageException(usage);
        var major = int.Parse(parts[0], System.Globalization.CultureInfo.InvariantCulture);
        if (!Majors.Contains(major)) throw new UsageException(usage);
        return new BenchmarkRuntime(text.Trim(), major, parts.Length == 3 ? text.Trim() : null);
    }

    /// <summary>The runtime identifier to publish for: the portable one of this OS and architecture.</summary>
    public static string RuntimeIdentifier =>
        (OperatingSystem.IsWindows() ? "win" : OperatingSystem.IsMacOS() ? "osx" : "linux") + "-" +
        RuntimeInformation.OSArchitecture.ToString().ToLowerInvariant();

    public override string ToString() => $".NET {Requested}";
}
