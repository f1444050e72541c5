using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Tests.Recorder.Kernel;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Recorder;

/// <summary>Real children that crash, get interrupted, are not .NET, or run at the same time.</summary>
[EndToEnd]
public sealed class RecorderFaultTests
{
    [Fact]
    public async Task A_child_that_crashes_mid_run_leaves_an_incomplete_but_analyzable_trace()
    {
        var dir = Repo.NewTempDir("crash");
        var (exit, folder, output) = await Recording.RecordAsync(Path.Combine(dir, "t"),
            ["--n", "20000", "--runs", "400", "--ops", "1", "--test", "serialize", "--serializers", "Reflection", "--fail-after-runs", "250", "--quiet"]);
        Assert.Equal(ExitCodes.Failed, exit);
        var manifest = TraceManifest.Load(folder.Manifest);
        Assert.Equal(RecordingStatus.ChildCrashed, manifest.Status);
        Assert.True(manifest.Incomplete);
        Assert.Contains("ChildCrashed", output, StringComparison.Ordinal);

        using var input = TraceInput.Open(folder.Path);
        var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
        // 250 runs (a few seconds) completed before the crash. Events still in the runtime's buffers at the moment
        // of the crash are lost with the process: EventPipe streams its file in blocks (about 50 KB here), and its
        // streaming thread can lag on a busy machine. A CI run crashing after 60 runs had streamed 2 blocks and no
        // run's end (without a stack per event, a block holds more of the recording). Everything streamed is kept and named.
        Assert.InRange(analysis.Runs.Count, 10, 251);
        Assert.All(analysis.Runs, r => Assert.Equal("Reflection", r.Key.Serializer));
        Assert.Contains(analysis.Warnings, w => w.Contains("rundown", StringComparison.Ordinal));
        Directory.Delete(dir, recursive: true);
    }

    [Fact]
    public async Task Ctrl_C_stops_the_session_keeps_a_valid_trace_and_stops_the_child()
    {
        var dir = Repo.NewTempDir("cancel");
        using var cancel = new CancellationTokenSource();
        // Far more runs than the test waits for: the interrupt must land mid-recording. With 200 runs one clean-clone CI
        // run with both cores busy reached the 6 MB below only as the child was finishing, and the recording ended
        // normally (exit 0) before the interrupt took effect.
        var record = Recording.RecordAsync(Path.Combine(dir, "t"), ["--n", "50000", "--runs", "5000", "--serializers", "Reflection", "--quiet"], cancel.Token);
        // Interrupt mid-recording, not before the session exists: wait for the trace to grow (a fixed delay is too
        // short when a busy machine is slow to start the child).
        var trace = Path.Combine(dir, "t", "trace.nettrace");
        var deadline = System.Diagnostics.Stopwatch.StartNew();
        // 3 MB: the start-up's type loads put 1.2-1.5 MB into the trace before the first run, then it grows about
        // 110 KB/s (at 3 MB: 14 s in, some 600 runs ended; 6 MB took 45 s). At 512 KB one clean-clone CI run under load
        // was interrupted before any run had ended.
        while (!record.IsCompleted && deadline.Elapsed < TimeSpan.FromSeconds(90) && (!File.Exists(trace) || new FileInfo(trace).Length < 3 * 1024 * 1024))
            await Task.Delay(100);
        Assert.False(record.IsCompleted, "the recording ended before it could be interrupted");
        var stopwatch = System.Diagnostics.Stopwatch.StartNew();
        cancel.Cancel();
        var (exit, folder, _) = await record;
        Assert.True(stopwatch.Elapsed < TimeSpan.FromSeconds(30), "interrupting took too long");
        Assert.Equal(ExitCodes.Interrupted, exit);
        var manifest = TraceManifest.Load(folder.Manifest);
        Assert.Equal(RecordingStatus.Interrupted, manifest.Status);
        Assert.True(manifest.ChildProcessId > 0);
        Assert.ThrowsAny<ArgumentException>(() => System.Diagnostics.Process.GetProcessById(manifest.ChildProcessId!.Value));

        using var input = TraceInput.Open(folder.Path);
        var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
        Assert.NotEmpty(analysis.Runs);
        Assert.True(analysis.Trace.HasRundown, "stopping the session should have produced rundown");
        // The kernel session stopped with it: its data analyzes, and no perf process is left.
        Assert.Empty(KernelSessionFaultTests.PerfProcessesFor(folder.Path));
        Assert.Equal(CpuSourceKind.Perf, analysis.Trace.CpuSource);
        // perf's BPF side-band thread is off (PerfRecordOptionsTests): it held each start and stop about 1 s.
        Assert.Contains("--no-bpf-event", manifest.Kernel!.CommandLine, StringComparison.Ordinal);
        Assert.Contains(analysis.Runs, r => r.Samples > 0);
        Directory.Delete(dir, recursive: true);
    }

    [Fact]
    public async Task A_program_that_is_not_dotnet_is_a_clear_error_and_leaves_no_files()
    {
        var dir = Repo.NewTempDir("notnet");
        var outDir = Path.Combine(dir, "t");
        var ex = await Assert.ThrowsAsync<UsageException>(() => Recording.RecordAsync(outDir, ["--", "/bin/true"]));
        Assert.Contains("before connecting to the diagnostic port", ex.Message, StringComparison.Ordinal);
        Assert.False(File.Exists(Path.Combine(outDir, "trace.nettrace")));
        Assert.False(Directory.Exists(outDir) && Directory.EnumerateFileSystemEntries(outDir).Any());

        var missing = await Assert.ThrowsAsync<UsageException>(() => Recording.RecordAsync(Path.Combine(dir, "u"), ["--", "/no/such/program"]));
        Assert.Contains("could not start", missing.Message, StringComparison.Ordinal);
        Directory.Delete(dir, recursive: true);
    }

    [Fact]
    public async Task Two_recordings_at_once_do_not_interfere()
    {
        var dir = Repo.NewTempDir("twice");
        // One warm-up and one measured run of one call per operation: two runs each of serialize and deserialize.
        string[] runs = ["--warmup", "1", "--runs", "1", "--ops", "1"];
        var a = Recording.RecordAsync(Path.Combine(dir, "a"), ["--n", "1000", .. runs, "--serializers", "Google.Protobuf", "--quiet"]);
        var b = Recording.RecordAsync(Path.Combine(dir, "b"), ["--n", "1000", .. runs, "--serializers", "System.Text.Json", "--quiet"]);
        var results = await Task.WhenAll(a, b);
        Assert.All(results, r => Assert.Equal(0, r.ExitCode));
        foreach (var (serializer, folder) in new[] { ("Google.Protobuf", results[0].Folder), ("System.Text.Json", results[1].Folder) })
        {
            using var input = TraceInput.Open(folder.Path);
            var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
            Assert.Equal(4, analysis.Runs.Count);
            Assert.All(analysis.Runs, r => Assert.Equal(serializer, r.Key.Serializer));
        }
        Directory.Delete(dir, recursive: true);
    }

    [Fact]
    public async Task Any_dotnet_command_can_be_recorded_after_double_dash()
    {
        var dir = Repo.NewTempDir("cmd");
        var (exit, folder, _) = await Recording.RecordAsync(Path.Combine(dir, "t"), ["--profile", "gc", "--", "dotnet", Repo.BenchmarkDll, "--n", "100", "--warmup", "1", "--runs", "1", "--ops", "1", "--serializers", "Reflection", "--quiet"]);
        Assert.Equal(0, exit);
        Assert.False(File.Exists(folder.ResultsJson), "results.json is only written when the recorder drives the benchmark itself");
        var manifest = TraceManifest.Load(folder.Manifest);
        Assert.Equal("gc", manifest.Profile);
        Assert.DoesNotContain(manifest.Providers, p => p.Name == "Microsoft-DotNETCore-SampleProfiler");
        using var input = TraceInput.Open(folder.Path);
        var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
        Assert.Equal(4, analysis.Runs.Count);
        Assert.Contains(analysis.Warnings, w => w.Contains("no CPU samples", StringComparison.Ordinal));
        Directory.Delete(dir, recursive: true);
    }
}
