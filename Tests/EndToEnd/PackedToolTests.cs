using System.Runtime.InteropServices;
using System.Text.Json.Nodes;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// esp as a user installs it: the Cli project packed as a .NET tool, installed into a fresh tool path, and run by
/// its command name from a fresh working directory. What this catches that the other tests cannot: a file the tool
/// needs at run time (the benchmark, the profiles, the stack tags) that is next to esp.dll in the build output but
/// missing from the package, or found through the repository instead of next to the installed tool.
/// </summary>
[EndToEnd]
[Collection(PackagingCollection.Name)]
public sealed class PackedToolTests
{
    /// <summary>
    /// Packing builds the linux-x64 and any packages for their RIDs: the Release build a user runs stays as it was.
    /// Once the package without a RID rebuilt it without ReadyToRun, and `esp analyze` ran 2.29 s instead of 1.45 s.
    /// </summary>
    [Fact]
    public void Packing_leaves_the_release_build_as_it_was()
    {
        _ = PackedTool.Packages;
        Assert.True(File.Exists(Path.Combine(Repo.Root, "Cli", "bin", "Release", "net10.0", "esp.dll")), "no Release build to compare");
        Assert.Empty(PackedTool.ReleaseBuildChanges);
    }

    [Fact]
    public void The_packed_tool_installs_and_records_and_analyzes_from_its_tool_path()
    {
        var dir = Repo.NewTempDir("tool");
        try
        {
            var (esp, toolDir) = PackAndInstall(dir);
            var work = Directory.CreateDirectory(Path.Combine(dir, "work")).FullName;

            var help = Esp(esp, work, "--help");
            Assert.True(help.ExitCode == 0, help.StdErr);
            Assert.Contains("esp record", help.StdOut, StringComparison.Ordinal);
            Assert.Contains("esp analyze", help.StdOut, StringComparison.Ordinal);

            var record = Esp(esp, work, "record", "--n", "100", "--runs", "2", "--analyze");
            Assert.True(record.ExitCode == 0, record.StdErr);
            // What a user reads: the recorder's lines, the benchmark's (quiet: its table is the analysis's) and the analysis.
            var read = (record.StdOut + record.StdErr).TrimEnd('\n').Split('\n');
            Assert.True(read.Length <= 150, $"{read.Length} lines:\n{record.StdOut}{record.StdErr}");
            Assert.All(read, l => Assert.True(l.TrimEnd('\r').Length <= 120, $"{l.Length} columns: {l}"));
            var folder = new TraceFolder(Assert.Single(Directory.GetDirectories(Path.Combine(work, "traces"))));
            var manifest = TraceManifest.Load(folder.Manifest);
            // The benchmark that ran is the one inside the installed package, not the repository's build output.
            Assert.Contains(Path.Combine(toolDir, ".store"), manifest.CommandLine, StringComparison.Ordinal);
            Assert.Contains("SerializerBenchmark.dll", manifest.CommandLine, StringComparison.Ordinal);
            Assert.Equal("default", manifest.Profile);
            Assert.Equal(TraceFolderLayout.StackTags, manifest.StackTagsFile);
            Assert.True(File.Exists(folder.StackTags));
            Assert.Contains("per serializer", record.StdOut, StringComparison.Ordinal);

            var analyze = Esp(esp, work, "analyze", folder.Path, "--tables", "all");
            Assert.True(analyze.ExitCode == 0, analyze.StdErr);
            // Every serializer and operation the benchmark measured (its own results.json) is a row with as many
            // measured runs as the benchmark made.
            var results = Recording.Results(folder);
            var measured = results.Runs.Where(r => !r.Warmup).GroupBy(r => (r.Operation, r.Serializer, r.Objects)).ToList();
            Assert.NotEmpty(measured);
            foreach (var g in measured)
                Assert.Contains(Row(analyze.StdOut, g.Key.Operation, g.Key.Serializer), r => r.Length > 2 && r[1] == $"{g.Key.Objects}" && r[2] == $"{g.Count()}");
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }

    /// <summary>
    /// scripts/pack-tool.sh, as a user packs the tool (<see cref="PackedTool"/>: the package users install, the native
    /// linux-x64 one and the managed one for every other platform), and `dotnet tool install --tool-path` from a NuGet
    /// config that lists only the folder they were packed into, so the feed is never asked. On linux-x64 the install is
    /// the native esp, the managed one beside it for the verbs it hands over; the any package holds the managed esp whole.
    /// </summary>
    private static (string Esp, string ToolDir) PackAndInstall(string dir)
    {
        var packages = PackedTool.Packages;
        var any = Path.Combine(packages, "EtwSerializerProfiler.any.0.1.0.nupkg");
        using (var zip = System.IO.Compression.ZipFile.OpenRead(any))
            foreach (var file in new[] { "esp.dll", "SerializerBenchmark.dll", "Profiles/profiles.json", "stacktags/Serializers.stacktags" })
                Assert.Contains(zip.Entries, e => e.FullName == $"tools/net10.0/any/{file}");
        // The run markers library is packed beside the tool, for an app of your own (docs/run-markers.md).
        using (var zip = System.IO.Compression.ZipFile.OpenRead(Path.Combine(packages, "EtwSerializerProfiler.RunMarkers.0.1.0.nupkg")))
            foreach (var tfm in new[] { "netstandard2.0", "net8.0" })
                Assert.Contains(zip.Entries, e => e.FullName == $"lib/{tfm}/EtwSerializerProfiler.RunMarkers.dll");
        var config = Path.Combine(dir, "nuget.config");
        LocalFeed.WriteConfig(config, packages);
        var toolDir = Path.Combine(dir, "tools");
        var install = ProcessRunner.Run("dotnet", ["tool", "install", "EtwSerializerProfiler", "--tool-path", toolDir, "--configfile", config]);
        Assert.True(install.ExitCode == 0, install.StdOut + install.StdErr);
        var esp = Path.Combine(toolDir, OperatingSystem.IsWindows() ? "esp.exe" : "esp");
        Assert.True(File.Exists(esp), $"no {esp} after install: {install.StdOut}");
        if (RuntimeInformation.IsOSPlatform(OSPlatform.Linux) && RuntimeInformation.OSArchitecture == Architecture.X64)
        {
            // The command is the native executable of the linux-x64 package (ELF, not the managed apphost).
            var target = File.ResolveLinkTarget(esp, returnFinalTarget: true)?.FullName ?? esp;
            Assert.Contains(Path.Combine("etwserializerprofiler.linux-x64", "0.1.0", "tools", "any", "linux-x64", "esp"), target, StringComparison.Ordinal);
            Assert.True(new FileInfo(target).Length > 10_000_000, $"{target} is not the native esp ({new FileInfo(target).Length} bytes)");
            Assert.True(File.Exists(Path.Combine(Path.GetDirectoryName(target)!, "managed", "esp.dll")), "no managed esp beside the native one");
        }
        return (esp, toolDir);
    }

    /// <summary>
    /// The tool's launcher finds the runtime as a user's would: DOTNET_ROOT if set, else the default install
    /// location; pointed at the runtime running the tests, so an SDK outside the default location works too.
    /// </summary>
    private static ProcessRunner.Result Esp(string esp, string workingDirectory, params string[] args)
    {
        var environment = new Dictionary<string, string>();
        if (Environment.GetEnvironmentVariable("DOTNET_ROOT") is null)
            environment["DOTNET_ROOT"] = Path.GetFullPath(Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), "..", "..", ".."));
        return ProcessRunner.Run(esp, args, TimeSpan.FromMinutes(3), workingDirectory, environment);
    }

    /// <summary>The cells of SERIALIZER's row in the "OPERATION: per serializer" table.</summary>
    private static IEnumerable<string[]> Row(string text, string operation, string serializer) =>
        text.Split('\n').SkipWhile(l => !l.StartsWith($"{operation}: per serializer", StringComparison.Ordinal)).Skip(1)
            .TakeWhile(l => l.Trim().Length > 0)
            .Select(l => l.Split(' ', StringSplitOptions.RemoveEmptyEntries))
            .Where(cells => cells.Length > 0 && cells[0] == serializer);
}
