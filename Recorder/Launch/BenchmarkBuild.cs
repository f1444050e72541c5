using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.EventPipe;

namespace EtwSerializerProfiler.Recorder.Launch;

/// <summary>Which build of the benchmark `esp record` runs.</summary>
public enum BenchmarkFramework
{
    /// <summary>net10.0: SerializerBenchmark.dll next to the tool, started with the dotnet host.</summary>
    Net10,
    /// <summary>net472: SerializerBenchmark.exe in the tool's net472\ folder, a .NET Framework program started directly (Windows, ETW).</summary>
    Net472,
}

/// <summary>
/// `esp record --framework net10.0|net472`: the names are target framework monikers, as in `dotnet build -f`. The
/// .NET Framework build is the other side of the seeds' .NET vs .NET Framework comparison (docs/windows.md).
/// </summary>
public static class BenchmarkBuild
{
    public const string Net10Moniker = "net10.0";
    public const string Net472Moniker = "net472";
    public const string Net10Assembly = "SerializerBenchmark.dll";
    public const string Net472Executable = "SerializerBenchmark.exe";

    public static BenchmarkFramework Parse(string moniker) => moniker.ToLowerInvariant() switch
    {
        Net10Moniker or "net10" => BenchmarkFramework.Net10,
        Net472Moniker => BenchmarkFramework.Net472,
        _ => throw new UsageException($"--framework must be {Net10Moniker} or {Net472Moniker}, got '{moniker}'"),
    };

    public static string Moniker(BenchmarkFramework framework) => framework == BenchmarkFramework.Net472 ? Net472Moniker : Net10Moniker;

    /// <summary>Where the build is, relative to the tool's folder (the Cli project copies the net472 build to net472\).</summary>
    public static string PathFor(BenchmarkFramework framework, string toolDirectory) => framework == BenchmarkFramework.Net472
        ? Path.Combine(toolDirectory, Net472Moniker, Net472Executable)
        : Path.Combine(toolDirectory, Net10Assembly);

    /// <summary>The command that starts the build with <paramref name="arguments"/>: the dotnet host for .NET, the .exe itself for .NET Framework.</summary>
    public static ChildCommand Command(BenchmarkFramework framework, string benchmarkPath, IReadOnlyList<string> arguments, IReadOnlyDictionary<string, string> environment)
    {
        if (framework == BenchmarkFramework.Net472) return new ChildCommand(benchmarkPath, arguments, environment);
        var dotnet = System.Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet";
        return new ChildCommand(dotnet, [benchmarkPath, .. arguments], environment);
    }
}
