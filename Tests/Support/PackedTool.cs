namespace EtwSerializerProfiler.Tests.Support;

/// <summary>
/// scripts/pack-tool.sh, run once per test run as a user packs the tool, into the tests' output folder: the
/// packages PackedToolTests installs. <see cref="Gate"/> is held while it packs: the BenchmarkDotNet test packs the
/// diagnoser's build, which the script builds too (a clean-clone run read the diagnoser's bin folder empty).
/// </summary>
public static class PackedTool
{
    public static readonly object Gate = new();
    private static readonly Once<string> s_packages = new(Pack);

    /// <summary>The folder the packages are in.</summary>
    public static string Packages => s_packages.Hurried();

    private static string Pack()
    {
        FastRun.RefuseSlowWork("packing the tool");
        // The native esp is compiled once for the run: the tests' own publish (NativeEsp), whose output the linux-x64
        // pack then reuses (10 s against 124 s cold). Packed beside it, both compiled it into the same Cli/obj folder.
        if (OperatingSystem.IsLinux() && System.Runtime.InteropServices.RuntimeInformation.OSArchitecture == System.Runtime.InteropServices.Architecture.X64)
            _ = NativeEsp.Path;
        var packages = Path.Combine(Repo.BinDir, "packed-tool");
        if (Directory.Exists(packages)) Directory.Delete(packages, recursive: true);
        lock (Gate)
        {
            var before = ReleaseBuild();
            var pack = ProcessRunner.Run("bash", [Path.Combine(Repo.Root, "scripts", "pack-tool.sh"), packages], TimeSpan.FromMinutes(30));
            Assert.True(pack.ExitCode == 0, pack.StdOut + pack.StdErr);
            var after = ReleaseBuild();
            ReleaseBuildChanges = [.. before.Keys.Union(after.Keys).Order(StringComparer.Ordinal)
                .Where(f => before.GetValueOrDefault(f) != after.GetValueOrDefault(f))];
        }
        return packages;
    }

    /// <summary>The files of the managed esp's Release build (what `dotnet Cli/bin/Release/net10.0/esp.dll` runs) that packing changed.</summary>
    public static IReadOnlyList<string> ReleaseBuildChanges { get; private set; } = [];

    /// <summary>Each file of Cli/bin/Release/net10.0 (not its RID folders) by the hash of its bytes.</summary>
    private static Dictionary<string, string> ReleaseBuild()
    {
        var build = Path.Combine(Repo.Root, "Cli", "bin", "Release", "net10.0");
        return Directory.Exists(build)
            ? Directory.EnumerateFiles(build).ToDictionary(f => Path.GetFileName(f), f => Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(File.ReadAllBytes(f))))
            : [];
    }
}
