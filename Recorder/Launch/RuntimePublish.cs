using System.Diagnostics;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.Launch;

/// <summary>
/// The benchmark published self-contained for another runtime (`dotnet publish -f net8.0 -r linux-x64
/// --self-contained`), cached between recordings in the benchmark's build output (Benchmark/bin/runtimes/), keyed by
/// runtime and a stamp of the sources it is built from: a changed source publishes again, an unchanged one never does.
/// The first publish of a runtime restores its runtime pack and builds three projects (about 100 s on this 2-core VM
/// at load average 27; the folder is ~75 MB); later recordings start at once. Publishes of one runtime are serialized
/// by a lock file, so parallel recordings (tests) share one.
/// </summary>
public static partial class RuntimePublish
{
    public const string ExecutableName = "SerializerBenchmark";
    private const string CompleteMarker = ".complete";

    /// <summary>The self-contained benchmark executable for <paramref name="runtime"/>, published first when not cached.</summary>
    public static string Executable(BenchmarkRuntime runtime, IProgress<string> progress, CancellationToken cancel)
    {
        var project = FindProject();
        var sources = Path.GetDirectoryName(Path.GetDirectoryName(project))!;
        var root = Environment.GetEnvironmentVariable("ESP_RUNTIME_CACHE") is { Length: > 0 } custom
            ? custom
            : Path.Combine(Path.GetDirectoryName(project)!, "bin", "runtimes");
        var rid = BenchmarkRuntime.RuntimeIdentifier;
        var key = $"{runtime.Requested}-{rid}";
        var folder = Path.Combine(root, $"{key}-{SourceStamp(sources)}");
        var exe = Path.Combine(folder, OperatingSystem.IsWindows() ? ExecutableName + ".exe" : ExecutableName);
        if (File.Exists(Path.Combine(folder, CompleteMarker))) return exe;

        Directory.CreateDirectory(root);
        using var gate = Lock(Path.Combine(root, $".lock-{key}"), cancel);
        if (File.Exists(Path.Combine(folder, CompleteMarker))) return exe; // published while we waited
        progress.Report($"publishing the benchmark for {runtime} ({runtime.TargetFramework}, {rid}, self-contained) into {folder}: the first time for these sources, about 1-2 minutes");
        var staging = folder + ".tmp";
        if (Directory.Exists(staging)) Directory.Delete(staging, recursive: true);
        var stopwatch = Stopwatch.StartNew();
        Publish(project, runtime, rid, Path.Combine(root, $"artifacts-{key}"), staging, cancel);
        File.WriteAllText(Path.Combine(staging, CompleteMarker), $"published in {stopwatch.Elapsed.TotalSeconds:F0} s\n");
        Directory.Move(staging, folder);
        progress.Report($"published in {stopwatch.Elapsed.TotalSeconds:F0} s (cached for later recordings)");
        foreach (var stale in Directory.EnumerateDirectories(root, $"{key}-*").Where(d => d != folder && !d.EndsWith(".tmp", StringComparison.Ordinal)))
            FileCleanup.TryDeleteDirectory(stale);
        return exe;
    }

    private static void Publish(string project, BenchmarkRuntime runtime, string rid, string artifacts, string output, CancellationToken cancel)
    {
        var dotnet = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet";
        // --artifacts-path: intermediate files apart from the solution's obj/ folders, so a build running at the same
        // time (the tests, a developer) never shares them with this publish.
        List<string> args = ["publish", project, "-c", "Release", "-f", runtime.TargetFramework, "-r", rid, "--self-contained",
            "--artifacts-path", artifacts, "-o", output, "-nologo", "-p:GenerateDocumentationFile=false"];
        if (runtime.ExactVersion is { } exact) args.Add($"-p:RuntimeFrameworkVersion={exact}");
        var start = new ProcessStartInfo(dotnet) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var a in args) start.ArgumentList.Add(a);
        start.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        start.Environment.Remove("DOTNET_DiagnosticPorts");
        using var process = Process.Start(start) ?? throw new InvalidOperationException($"could not start {dotnet}");
        var stderr = process.StandardError.ReadToEndAsync(cancel);
        var stdout = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        var text = stdout + stderr.GetAwaiter().GetResult();
        if (process.ExitCode == 0) return;
        throw new BadInputException(FailureLine(runtime, text));
    }

    /// <summary>One line: the missing package when restore could not find it, else the first error.</summary>
    public static string FailureLine(BenchmarkRuntime runtime, string publishOutput)
    {
        if (MissingPackage().Match(publishOutput) is { Success: true } missing)
            return $"--runtime {runtime.Requested}: the runtime cannot be restored: package {missing.Groups["package"].Value}{missing.Groups["version"].Value} is not on the NuGet feed ({missing.Groups["code"].Value})";
        var error = publishOutput.Split('\n').Select(l => l.Trim()).FirstOrDefault(l => l.Contains(": error ", StringComparison.Ordinal))
            ?? publishOutput.Split('\n').Select(l => l.Trim()).LastOrDefault(l => l.Length > 0) ?? "no output";
        return $"--runtime {runtime.Requested}: publishing the benchmark failed: {error}";
    }

    /// <summary>Benchmark/Benchmark.csproj in the source tree the tool was built from (or ESP_BENCHMARK_PROJECT).</summary>
    public static string FindProject()
    {
        if (Environment.GetEnvironmentVariable("ESP_BENCHMARK_PROJECT") is { Length: > 0 } set)
            return File.Exists(set) ? Path.GetFullPath(set) : throw new UsageException($"ESP_BENCHMARK_PROJECT: {set} not found");
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            var candidate = Path.Combine(dir.FullName, "Benchmark", "Benchmark.csproj");
            if (File.Exists(candidate)) return candidate;
        }
        throw new UsageException($"--runtime publishes the benchmark from its sources: Benchmark/Benchmark.csproj not found above {AppContext.BaseDirectory} (run esp from the repository's build, or set ESP_BENCHMARK_PROJECT)");
    }

    /// <summary>SHA-256 over the benchmark's sources and the files that configure its build (path and content), 16 hex digits.</summary>
    public static string SourceStamp(string sourceRoot)
    {
        string[] folders = ["Benchmark", "Common", "RunMarkers"];
        var files = folders.Select(f => Path.Combine(sourceRoot, f)).Where(Directory.Exists)
            .SelectMany(d => Directory.EnumerateFiles(d, "*", SearchOption.AllDirectories))
            .Where(f => !InBuildOutput(Path.GetRelativePath(sourceRoot, f)))
            .Where(f => Path.GetExtension(f) is ".cs" or ".csproj" or ".props" or ".targets" or ".json")
            .Concat(new[] { "Directory.Build.props", "Directory.Packages.props", "NuGet.config", "global.json" }.Select(f => Path.Combine(sourceRoot, f)).Where(File.Exists))
            .Select(f => Path.GetRelativePath(sourceRoot, f).Replace('\\', '/'))
            .OrderBy(f => f, StringComparer.Ordinal);
        using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        foreach (var file in files)
        {
            hash.AppendData(Encoding.UTF8.GetBytes(file + "\n"));
            hash.AppendData(File.ReadAllBytes(Path.Combine(sourceRoot, file)));
        }
        return Convert.ToHexStringLower(hash.GetHashAndReset())[..16];
    }

    private static bool InBuildOutput(string relative) =>
        relative.Replace('\\', '/').Split('/').Any(part => part is "bin" or "obj");

    private static FileStream Lock(string path, CancellationToken cancel)
    {
        while (true)
        {
            try { return new FileStream(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None); }
            catch (IOException) { Task.Delay(500, cancel).GetAwaiter().GetResult(); }
        }
    }

    // NU1101: no such package; NU1102: not at that version. E.g. "error NU1102: Unable to find package
    // Microsoft.NETCore.App.Runtime.linux-x64 with version (= 8.0.999)".
    [GeneratedRegex(@"error (?<code>NU110[12]): Unable to find package (?<package>[\w.\-]+)(?<version> with version \([^)]*\))?")]
    private static partial Regex MissingPackage();
}
