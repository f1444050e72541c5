using System.Runtime.InteropServices;
using System.Text.Json.Nodes;

namespace EtwSerializerProfiler.Tests.Support;

/// <summary>
/// A dotnet root as on a machine with the .NET 8 runtime installed beside the SDK's own: the SDK's muxer (copied: it
/// finds its root from its own path) and its sdk/, host/, packs/ and shared runtimes (linked), plus
/// shared/Microsoft.NETCore.App/8.0.x made from the runtime pack (Microsoft.NETCore.App.Runtime.linux-x64), which
/// restores from the feed where no .NET 8 runtime is installed. Its `dotnet` first on PATH, BenchmarkDotNet's
/// default toolchain runs a job that names .NET 8 on that runtime. Linux x64 only (the one runtime pack restored).
/// </summary>
public static class Net8DotnetRoot
{
    /// <summary>Creates the root in <paramref name="dir"/> (about 70 MB), restoring in <paramref name="restoreDir"/>; returns the .NET 8 runtime's version.</summary>
    public static string Create(string dir, string restoreDir)
    {
        var sdkRoot = Path.GetFullPath(Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), "..", "..", ".."));
        var pack = RestoreRuntimePack(restoreDir);
        var version = Path.GetFileName(pack);
        Directory.CreateDirectory(dir);
        File.Copy(Path.Combine(sdkRoot, "dotnet"), Path.Combine(dir, "dotnet"));
        foreach (var entry in Directory.GetDirectories(sdkRoot).Where(d => Path.GetFileName(d) != "shared"))
            Directory.CreateSymbolicLink(Path.Combine(dir, Path.GetFileName(entry)), entry);
        foreach (var framework in Directory.GetDirectories(Path.Combine(sdkRoot, "shared")))
            foreach (var installed in Directory.GetDirectories(framework))
            {
                var target = Path.Combine(dir, "shared", Path.GetFileName(framework), Path.GetFileName(installed));
                Directory.CreateDirectory(Path.GetDirectoryName(target)!);
                Directory.CreateSymbolicLink(target, installed);
            }
        // The framework folder is the pack's managed and native files side by side, with the pack's deps.json.
        var runtime = Path.Combine(dir, "shared", "Microsoft.NETCore.App", version);
        Directory.CreateDirectory(runtime);
        foreach (var source in new[] { Path.Combine(pack, "runtimes", "linux-x64", "lib", "net8.0"), Path.Combine(pack, "runtimes", "linux-x64", "native") })
            foreach (var file in Directory.GetFiles(source)) File.Copy(file, Path.Combine(runtime, Path.GetFileName(file)));
        return version;
    }

    /// <summary>
    /// The runtime pack's folder in the package cache: restored for a self-contained net8.0 project, in the version the
    /// SDK picks (the one its self-contained publish of net8.0 would use), read from the restore's assets file.
    /// </summary>
    private static string RestoreRuntimePack(string dir)
    {
        Directory.CreateDirectory(dir);
        File.WriteAllText(Path.Combine(dir, "restore.csproj"), """
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <OutputType>Exe</OutputType>
                <TargetFramework>net8.0</TargetFramework>
                <RuntimeIdentifier>linux-x64</RuntimeIdentifier>
                <SelfContained>true</SelfContained>
              </PropertyGroup>
            </Project>
            """);
        var restore = ProcessRunner.Run("dotnet", ["restore", "--nologo"], workingDirectory: dir);
        Assert.True(restore.ExitCode == 0, restore.StdOut + restore.StdErr);
        var assets = JsonNode.Parse(File.ReadAllText(Path.Combine(dir, "obj", "project.assets.json")))!;
        var downloads = assets["project"]!["frameworks"]!["net8.0"]!["downloadDependencies"]!.AsArray();
        var range = (string)Assert.Single(downloads, d => (string?)d!["name"] == "Microsoft.NETCore.App.Runtime.linux-x64")!["version"]!;
        var version = range.Trim('[', ']').Split(',')[0].Trim();
        var folders = assets["packageFolders"]!.AsObject().Select(f => f.Key);
        return folders.Select(f => Path.Combine(f, "microsoft.netcore.app.runtime.linux-x64", version)).First(Directory.Exists);
    }
}
