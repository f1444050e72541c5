using System.IO.Compression;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.RunMarkers;

/// <summary>
/// The run markers library as a user's project gets it: `dotnet pack` of RunMarkers/, then a fresh console app outside
/// the repository that references the package from a feed holding only that package, built and run. What this catches
/// that the in-repo tests cannot: a package missing a framework's build, its docs or its readme, or depending on a
/// project of this repository that no feed has.
/// </summary>
[EndToEnd]
public sealed class PackedLibraryTests
{
    [Fact]
    public void The_packed_library_has_both_builds_and_a_fresh_app_marks_a_run_with_it()
    {
        var dir = Repo.NewTempDir("lib");
        try
        {
            var packages = Path.Combine(dir, "nupkg");
            var nupkg = LocalFeed.Pack(Path.Combine("RunMarkers", "RunMarkers.csproj"), packages, "EtwSerializerProfiler.RunMarkers");
            using (var zip = ZipFile.OpenRead(nupkg))
            {
                var files = zip.Entries.Select(e => e.FullName).ToHashSet(StringComparer.Ordinal);
                foreach (var tfm in new[] { "netstandard2.0", "net8.0" })
                {
                    Assert.Contains($"lib/{tfm}/EtwSerializerProfiler.RunMarkers.dll", files);
                    Assert.Contains($"lib/{tfm}/EtwSerializerProfiler.RunMarkers.xml", files);
                }
                Assert.Contains("README.md", files);
                using var nuspec = new StreamReader(zip.Entries.Single(e => e.FullName.EndsWith(".nuspec", StringComparison.Ordinal)).Open());
                Assert.DoesNotContain("EtwSerializerProfiler.Common", nuspec.ReadToEnd(), StringComparison.Ordinal);
            }

            var app = Directory.CreateDirectory(Path.Combine(dir, "app")).FullName;
            LocalFeed.WriteConfig(Path.Combine(app, "nuget.config"), packages);
            File.WriteAllText(Path.Combine(app, "app.csproj"), $"""
                <Project Sdk="Microsoft.NET.Sdk">
                  <PropertyGroup>
                    <OutputType>Exe</OutputType>
                    <TargetFramework>net10.0</TargetFramework>
                    <ImplicitUsings>enable</ImplicitUsings>
                    <Nullable>enable</Nullable>
                    <!-- A folder of its own, so this test's package never lands in (or comes from) the machine's cache. -->
                    <RestorePackagesPath>{Path.Combine(dir, "packages")}</RestorePackagesPath>
                  </PropertyGroup>
                  <ItemGroup>
                    <PackageReference Include="EtwSerializerProfiler.RunMarkers" Version="*" />
                  </ItemGroup>
                </Project>
                """);
            File.WriteAllText(Path.Combine(app, "Program.cs"), """
                using EtwSerializerProfiler.RunMarkers;
                var timing = MarkedRuns.Measure("Hello", "greet", 1, () => Thread.Sleep(20));
                using (var run = MarkedRuns.Start("Hello", "greet", 1)) { }
                Console.WriteLine($"{timing.Info.Name} {timing.Info.Operation} run {timing.Run}: {timing.DurationMs >= 20} {MarkedRuns.ProviderName}");
                """);
            var run = ProcessRunner.Run("dotnet", ["run", "--project", app, "-c", "Release", "--nologo"], TimeSpan.FromMinutes(5), app);
            Assert.True(run.ExitCode == 0, run.StdOut + run.StdErr);
            Assert.Contains("Hello greet run 0: True EtwSerializerProfiler-Runs", run.StdOut, StringComparison.Ordinal);
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }
}
