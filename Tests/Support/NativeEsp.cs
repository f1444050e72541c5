using System.Runtime.InteropServices;

namespace EtwSerializerProfiler.Tests.Support;

/// <summary>
/// The native esp (Cli/NativeAot.targets), published once per test run into the tests' own output folder: the same
/// `dotnet publish` a user runs (scripts/publish-native.sh), so what the tests hold is what users get.
/// </summary>
public static class NativeEsp
{
    private static readonly Once<string> s_path = new(Publish);

    /// <summary>The executable; publishing it is the first caller's cost (about a minute, longer on a busy machine).</summary>
    public static string Path => s_path.Hurried();

    public static ProcessRunner.Result Run(string workingDirectory, params string[] args) =>
        ProcessRunner.Run(Path, args, TimeSpan.FromMinutes(3), workingDirectory);

    private static string Publish()
    {
        FastRun.RefuseSlowWork("publishing the native esp");
        Assert.True(RuntimeInformation.IsOSPlatform(OSPlatform.Linux) && RuntimeInformation.OSArchitecture == Architecture.X64,
            "the native esp is published for linux-x64 (Cli/NativeAot.targets)");
        var output = System.IO.Path.Combine(Repo.BinDir, "native-esp");
        // A hang guard, not a budget: in the background (Prefetch, nice 19) a busy machine can starve it for long.
        var publish = ProcessRunner.Run("dotnet", ["publish", System.IO.Path.Combine(Repo.Root, "Cli", "Cli.csproj"), "-c", LocalFeed.Configuration,
            "-r", "linux-x64", "-p:EspNative=true", "-o", output, "--nologo"], TimeSpan.FromMinutes(30));
        Assert.True(publish.ExitCode == 0, $"native publish failed:\n{publish.StdOut}\n{publish.StdErr}");
        var esp = System.IO.Path.Combine(output, "esp");
        Assert.True(File.Exists(esp), $"no {esp} after the native publish");
        return esp;
    }
}
