namespace EtwSerializerProfiler.Tests.Support;

/// <summary>
/// A project of this repository packed as a user gets it, into a folder that a NuGet config makes the only feed, so
/// installing or restoring from it never asks the machine's feed (and cannot be satisfied by it).
/// </summary>
public static class LocalFeed
{
    /// <summary>The configuration the tests were built in: `dotnet pack --no-build` packs that build.</summary>
    public static string Configuration { get; } = new DirectoryInfo(Repo.BinDir).Parent!.Name;

    /// <summary>Packs PROJECT (relative to the repository root) into <paramref name="packages"/>; returns the one .nupkg.</summary>
    public static string Pack(string project, string packages, string packageIdPattern)
    {
        FastRun.RefuseSlowWork("packing " + project);
        var pack = ProcessRunner.Run("dotnet", ["pack", Path.Combine(Repo.Root, project), "-c", Configuration, "--no-build", "-o", packages, "--nologo"]);
        Assert.True(pack.ExitCode == 0, pack.StdOut + pack.StdErr);
        return Assert.Single(Directory.GetFiles(packages, packageIdPattern + ".*.nupkg"));
    }

    /// <summary>Writes a nuget.config at <paramref name="path"/> whose only source is <paramref name="packages"/>.</summary>
    public static void WriteConfig(string path, string packages) =>
        File.WriteAllText(path, $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <packageSources>
                <clear />
                <add key="packed" value="{packages}" />
              </packageSources>
            </configuration>
            """);
}
