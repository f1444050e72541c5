using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Recorder.Kernel;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Recorder.Kernel;

/// <summary>
/// The kernel session when perf is missing, only partly permitted, or its recording is cut short: the EventPipe
/// recording always happens, the reason is printed and kept, what perf did record analyzes, and no perf process
/// outlives the recording.
/// </summary>
/// <summary>Runs alone: one test points ESP_PERF at a missing perf for the whole process, which would turn any
/// recording another class made meanwhile into an EventPipe-only one (and fail its kernel-session asserts).</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ProcessEnvironmentCollection
{
    public const string Name = "process environment";
}

[EndToEnd]
[Collection(ProcessEnvironmentCollection.Name)]
public sealed class KernelSessionFaultTests : IDisposable
{
    private readonly string _dir = Repo.NewTempDir("kernel-faults");

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }

    // One warm-up and two measured runs of one call each, per operation: six runs, whatever the automatic warm-up does.
    private static readonly string[] Small = ["--n", "2000", "--warmup", "1", "--runs", "2", "--ops", "1", "--serializers", "Google.Protobuf", "--quiet"];

    /// <summary>perf processes still writing into this folder (a leaked session).</summary>
    public static IReadOnlyList<int> PerfProcessesFor(string folder) =>
        [.. Directory.EnumerateDirectories("/proc").Select(d => Path.GetFileName(d)).Where(n => n.All(char.IsDigit)).Select(int.Parse).Where(pid =>
        {
            try { return File.ReadAllText($"/proc/{pid}/cmdline").Replace('\0', ' ') is var cmd && cmd.Contains("perf", StringComparison.Ordinal) && cmd.Contains(folder, StringComparison.Ordinal); }
            catch (IOException) { return false; }
            catch (UnauthorizedAccessException) { return false; }
        })];

    [Fact]
    public async Task Without_perf_the_recording_is_EventPipe_only_with_the_reason_and_EventPipes_sampler_on()
    {
        var previous = Environment.GetEnvironmentVariable(PerfProbe.PerfVariable);
        Environment.SetEnvironmentVariable(PerfProbe.PerfVariable, "/nonexistent/perf");
        try
        {
            // Runs of 200 calls (tens of ms, not Small's one call of 0.2-0.6 ms): with both cores busy EventPipe's
            // sampler thread took no sample in six one-call runs (2026-11-24), and the sampler being on is the point.
            string[] sampled = [.. Small.Select((a, i) => i > 0 && Small[i - 1] == "--ops" ? "200" : a)];
            var (exit, folder, output) = await Recording.RecordAsync(Path.Combine(_dir, "noperf"), sampled);
            Assert.Equal(ExitCodes.Ok, exit);
            Assert.Contains("kernel session: not recorded (perf is not installed", output, StringComparison.Ordinal);
            var manifest = TraceManifest.Load(folder.Manifest);
            Assert.Equal(KernelSessionInfo.NotRecorded, manifest.Kernel!.Status);
            Assert.Contains("/nonexistent/perf", manifest.Kernel.Reason, StringComparison.Ordinal);
            Assert.Contains(manifest.Providers, p => p.Name == "Microsoft-DotNETCore-SampleProfiler");
            Assert.False(File.Exists(folder.KernelScript));

            using var input = TraceInput.Open(folder.Path);
            var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
            Assert.Equal(CpuSourceKind.EventPipe, analysis.Trace.CpuSource);
            Assert.Equal(6, analysis.Runs.Count);
            // EventPipe's sampler is a thread of the child: with both cores busy it misses whole runs of a few ms
            // (2 of 6 runs sampled, 3-4 samples in all, under two `yes` loops), so the runs together must have samples.
            var detail = string.Join(", ", analysis.Runs.Select(r => $"{r.Key.Serializer} {r.Key.Operation} {r.DurationMs:F1} ms {r.Samples}"));
            Assert.True(analysis.Runs.Sum(r => r.Samples) > 0, "no EventPipe samples in any run: " + detail);
        }
        finally { Environment.SetEnvironmentVariable(PerfProbe.PerfVariable, previous); }
    }

    [Fact]
    public async Task Kernel_off_is_EventPipe_only_by_request()
    {
        var (exit, folder, _) = await Recording.RecordAsync(Path.Combine(_dir, "off"), ["--kernel", "off", .. Small]);
        Assert.Equal(ExitCodes.Ok, exit);
        var manifest = TraceManifest.Load(folder.Manifest);
        Assert.Equal("--kernel off", manifest.Kernel!.Reason);
        Assert.False(File.Exists(folder.KernelData));
    }

    [Fact]
    public async Task A_user_perf_only_partly_permits_records_the_user_space_samples_and_names_what_is_missing()
    {
        // A real non-root user at this machine's perf_event_paranoid (2): perf allows its own process's user-space
        // CPU samples, but no scheduler tracepoints and no kernel frames.
        if (Environment.UserName != "root")
        {
            // Not root: this test's own user is the partly permitted one.
            var (ownExit, ownFolder, _) = await Recording.RecordAsync(Path.Combine(_dir, "user"), Small);
            Assert.Equal(ExitCodes.Ok, ownExit);
            AssertPartial(TraceManifest.Load(ownFolder.Manifest).Kernel!);
            return;
        }
        Directory.CreateDirectory(Path.Combine(_dir, "nobody"));
        Chmod(_dir);
        Chmod(Path.Combine(_dir, "nobody"));
        var outDir = Path.Combine(_dir, "nobody", "t");
        var psi = new System.Diagnostics.ProcessStartInfo("setpriv") { RedirectStandardOutput = true, RedirectStandardError = true };
        string[] args = ["--reuid=65534", "--regid=65534", "--clear-groups", "env", $"HOME={_dir}", $"DOTNET_CLI_HOME={_dir}",
            "dotnet", Path.Combine(Repo.BinDir, "esp.dll"), "record", "--out", outDir, .. Small];
        foreach (var a in args)
            psi.ArgumentList.Add(a);
        using var p = System.Diagnostics.Process.Start(psi)!;
        var stderr = p.StandardError.ReadToEndAsync();
        var stdout = await p.StandardOutput.ReadToEndAsync();
        await p.WaitForExitAsync();
        Assert.True(p.ExitCode == 0, $"esp record as nobody exited {p.ExitCode}: {stdout} {await stderr}");
        AssertPartial(TraceManifest.Load(Path.Combine(outDir, TraceFolderLayout.Manifest)).Kernel!);
        Assert.Contains("missing: sched:sched_switch", stdout, StringComparison.Ordinal);

        using var input = TraceInput.Open(outDir);
        var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
        Assert.Equal(CpuSourceKind.Perf, analysis.Trace.CpuSource);
        Assert.All(analysis.Runs, r => Assert.Empty(r.OffCpuMs)); // no context switches: nothing is invented
    }

    private static void AssertPartial(KernelSessionInfo kernel)
    {
        Assert.Equal(KernelSessionInfo.Recorded, kernel.Status);
        Assert.Equal([PerfRecording.CpuClock], kernel.Events.Select(e => e.Split('/')[0]));
        Assert.Contains(kernel.Missing, m => m.StartsWith(PerfRecording.SchedSwitch, StringComparison.Ordinal));
        Assert.Contains(kernel.Missing, m => m.Contains("kernel frames", StringComparison.Ordinal));
    }

    private static void Chmod(string path)
    {
        if (!OperatingSystem.IsWindows()) File.SetUnixFileMode(path, (UnixFileMode)0x1FF); // rwx for the other user
    }

    [Fact]
    public async Task A_child_that_crashes_leaves_kernel_data_that_analyzes_and_no_perf_process()
    {
        var (exit, folder, _) = await Recording.RecordAsync(Path.Combine(_dir, "crash"),
            ["--n", "20000", "--warmup", "1", "--runs", "39", "--ops", "1", "--test", "serialize", "--serializers", "Reflection", "--fail-after-runs", "20", "--quiet"]);
        Assert.Equal(ExitCodes.Failed, exit);
        Assert.Empty(PerfProcessesFor(folder.Path));
        Assert.Equal(KernelSessionInfo.Recorded, TraceManifest.Load(folder.Manifest).Kernel!.Status);
        using var input = TraceInput.Open(folder.Path);
        var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
        Assert.Equal(CpuSourceKind.Perf, analysis.Trace.CpuSource);
        Assert.True(analysis.Trace.Kernel!.ProcessSamples > 0, "no kernel samples of the crashed child");
        // The run events still in the crashed child's EventPipe buffers die with it: with both cores busy all 20 runs'
        // events were once lost. The kernel data does not depend on the child; runs that did arrive carry its samples.
        Assert.True(analysis.Runs.Count == 0 || analysis.Runs.Any(r => r.Samples > 0), $"{analysis.Runs.Count} runs, none with kernel samples");
    }
}
