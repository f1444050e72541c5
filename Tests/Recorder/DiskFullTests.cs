using System.Diagnostics;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Recorder.Kernel;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Recorder;

/// <summary>
/// The real `esp record` writing onto a small tmpfs that fills up (docs/recorder.md, "The disk fills up"): one
/// line, exit 4, every session stopped, nothing left running, and what reached the disk analyzes.
/// </summary>
[EndToEnd]
public sealed class DiskFullTests
{
    // Five warm-up runs: measured runs start within a second, so the 12 MB disk fills during them, not the warm-up.
    // 100 runs: without a stack per event the trace grows about 1.5 MB/s (2026-11-26), so 5 runs filled no 12 MB.
    private static readonly string[] YamlDotNet = ["--n", "10000", "--serializers", "YamlDotNet", "--warmup", "5", "--runs", "100", "--quiet"];

    [PlatformFact("LinuxRoot", "mounts a small tmpfs (mount needs root; CI runs as root)")]
    public void A_disk_that_fills_at_4_MB_stops_the_recording_cleanly() => FillsUp(4);

    [PlatformFact("LinuxRoot", "mounts a small tmpfs (mount needs root; CI runs as root)")]
    public void A_disk_that_fills_at_12_MB_stops_the_recording_cleanly() => FillsUp(12);

    [PlatformFact("LinuxRoot", "mounts a small tmpfs (mount needs root; CI runs as root)")]
    public void A_disk_too_full_to_start_is_refused_before_anything_runs()
    {
        using var disk = new Tmpfs(1);
        var folder = Path.Combine(disk.Path, "t");
        var clock = Stopwatch.StartNew();
        var r = ProcessRunner.Dotnet(Path.Combine(Repo.BinDir, "esp.dll"), ["record", "--out", folder, .. YamlDotNet]);
        Assert.Equal(ExitCodes.DiskFull, r.ExitCode);
        var line = Assert.Single(Lines(r.StdErr));
        Assert.StartsWith($"esp record: only 1.0 MB free at {folder}: a recording needs at least 3.0 MB to start", line, StringComparison.Ordinal);
        Assert.Empty(Lines(r.StdOut));
        Assert.False(Directory.Exists(folder), "a refused recording leaves no folder");
        // Refused before the benchmark starts: seconds (the process's own start-up), not a recording's minute.
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(30), $"the refusal took {clock.Elapsed.TotalSeconds:F0} s");
    }

    private static void FillsUp(int megabytes)
    {
        using var disk = new Tmpfs(megabytes);
        var folder = Path.Combine(disk.Path, "t");
        var esp = Path.Combine(Repo.BinDir, "esp.dll");
        // esp started as a background shell starts it, with SIGINT ignored (passed on to the benchmark): the cut still
        // stops the benchmark at once, so that it saves what it measured (RecordedRuntime.Interrupt).
        var r = ProcessRunner.Run("sh", ["-c", "trap '' INT; exec \"$@\"", "sh", "dotnet", esp, "record", "--out", folder, .. YamlDotNet]);

        Assert.True(r.ExitCode == ExitCodes.DiskFull, $"exit {r.ExitCode}\n{r.StdOut}\n{r.StdErr}");
        // esp's own lines start with "esp record:" (the benchmark's table shares stdout): exactly one, and no stack.
        var line = Assert.Single(Lines(r.StdOut + "\n" + r.StdErr), l => l.StartsWith("esp record:", StringComparison.Ordinal));
        Assert.StartsWith($"esp record: the disk is full at {folder} after ", line, StringComparison.Ordinal);
        Assert.DoesNotContain("Unhandled exception", r.StdErr, StringComparison.Ordinal);
        Assert.DoesNotContain("internal error", r.StdErr, StringComparison.Ordinal);
        Assert.DoesNotContain(Lines(r.StdErr), l => l.StartsWith("at ", StringComparison.Ordinal));

        var manifest = TraceManifest.Load(Path.Combine(folder, TraceFolderLayout.Manifest));
        Assert.Equal(RecordingStatus.DiskFull, manifest.Status);
        Assert.True(manifest.Incomplete);
        var cut = Assert.IsType<RecordingCut>(manifest.Cut);
        // Cut while a little is left (so perf can finish), or at a write that failed first.
        Assert.True(cut.Reason.StartsWith("the disk is nearly full", StringComparison.Ordinal) || cut.Reason.Contains("No space left", StringComparison.Ordinal), cut.Reason);
        Assert.InRange(cut.TraceBytes, 1, megabytes * 1048576L);
        Assert.Equal(cut.TraceBytes, new FileInfo(Path.Combine(folder, TraceFolderLayout.Trace)).Length);
        Assert.Empty(Directory.GetFiles(folder, ".reserve*")); // the room set aside is freed

        // Nothing left running: the benchmark and the kernel session's perf.
        Assert.True(manifest.ChildProcessId > 0);
        Assert.ThrowsAny<ArgumentException>(() => Process.GetProcessById(manifest.ChildProcessId!.Value));
        Assert.Empty(KernelSessionFaultTests.PerfProcessesFor(folder));
        Assert.False(File.Exists(BenchmarkResults.FallbackPath(manifest.ChildProcessId!.Value)), "the results were moved into the folder");

        // The benchmark's own results are kept: partial when it was asked to stop (SIGINT at the cut), whole when
        // the disk filled as it was ending; every run it measured is there.
        // A Ctrl+C before the benchmark's handler is on (a busy machine's start-up, 4 MB filled in 0.4 s) ends it with
        // nothing measured: then no run may be in the trace either.
        var resultsPath = Path.Combine(folder, TraceFolderLayout.ResultsJson);
        var results = File.Exists(resultsPath) ? BenchmarkResults.Load(resultsPath) : null;

        // What is left analyzes (the .etlx cache does not fit beside it: converted in the temp folder) and says where it was cut.
        var analyze = ProcessRunner.Dotnet(esp, ["analyze", folder]);
        Assert.True(analyze.ExitCode == ExitCodes.Ok, $"esp analyze exit {analyze.ExitCode}\n{analyze.StdErr}");
        Assert.Contains("the recording was cut", analyze.StdOut + analyze.StdErr, StringComparison.Ordinal);

        using var input = TraceInput.Open(folder);
        var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
        Assert.Contains(analysis.Warnings, w => w.StartsWith("the recording was cut", StringComparison.Ordinal));
        Assert.All(analysis.Runs, run => Assert.Equal("YamlDotNet", run.Key.Serializer));
        // Each measured run in the trace is joined to its in-process result: results.json is the benchmark's, kept whole.
        var unjoined = analysis.Runs.Where(run => run.IsMeasured && run.InProcess is null).Select(run => run.Key).ToList();
        Assert.True(unjoined.Count == 0, $"{unjoined.Count} measured runs without their in-process result, first {unjoined.FirstOrDefault()}; "
            + $"results.json: {(results is null ? "none" : string.Join(", ", results.Runs.Take(8).Select(x => $"{x.Serializer} {x.Operation} {x.Objects} run {x.Run}")))}; "
            + $"analysis.InProcess {(analysis.InProcess is null ? "null" : $"{analysis.InProcess.Runs.Count} runs")}; warnings: {string.Join(" | ", analysis.Warnings)}"
            // What esp and the benchmark said: a benchmark that ignored the cut's interrupt ran on and was killed (exit 137).
            + $"; the benchmark's exit code {manifest.ChildExitCode?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "none"}"
            + $"\nesp record's stderr:\n{r.StdErr}\nits stdout's end:\n{r.StdOut[Math.Max(0, r.StdOut.Length - 2000)..]}");
        Assert.True((results?.Runs.Count ?? 0) >= analysis.Runs.Count, $"results.json has {(results is null ? "no" : (object)results.Runs.Count)} runs, the trace {analysis.Runs.Count}");
        if (megabytes >= 12)
        {
            Assert.NotNull(results);
            // Stopped by the recorder, not run to its end or killed after the grace.
            Assert.True(manifest.ChildExitCode == ExitCodes.Interrupted, $"the benchmark's exit code {manifest.ChildExitCode}");
        }
        // Runs that completed before the cut have on-CPU figures from the kernel session, held to the benchmark's
        // thread CPU clock (a partial run at the cut is left out by the analyzer, never shown as a whole one).
        // perf writes to the same disk: with small buffers on a tight disk (PerfSession.TightDiskMmapPages) the trace
        // is cut before perf meets the full disk, so its file is whole and converted.
        Assert.True(manifest.Kernel?.Status == KernelSessionInfo.Recorded, $"kernel session: {manifest.Kernel?.Reason}");
        Assert.Equal(CpuSourceKind.Perf, analysis.Trace.CpuSource);
        // Runs that ended before the cut have on-CPU figures, held to the benchmark's thread CPU clock
        // (ThreadClockBounds). The run cut in half is left out.
        var compared = ThreadClockBounds.AssertHeld(analysis.Runs, manifest.Kernel?.HostStealMs ?? 0);
        if (megabytes >= 12) Assert.True(compared >= 3, $"{compared} measured runs compared with the thread CPU clock");
    }

    private static List<string> Lines(string text) =>
        [.. text.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)];

    /// <summary>A tmpfs of the given size, unmounted and removed however the test ends.</summary>
    private sealed class Tmpfs : IDisposable
    {
        public string Path { get; } = Repo.NewTempDir("diskfull");

        public Tmpfs(int megabytes)
        {
            var mount = ProcessRunner.Run("mount", ["-t", "tmpfs", "-o", $"size={megabytes}m", "tmpfs", Path]);
            Assert.True(mount.ExitCode == 0, $"mount: {mount.StdErr}");
        }

        public void Dispose()
        {
            // A reader thread of the analysis may still hold a file for a moment: then detach it lazily, never leave it mounted.
            if (ProcessRunner.Run("umount", [Path]).ExitCode != 0) ProcessRunner.Run("umount", ["-l", Path]);
            FileCleanup.TryDeleteDirectory(Path);
        }
    }
}
