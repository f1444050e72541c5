using System.Diagnostics;
using System.Text.Json;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// `esp record --pid`: a user's app that already runs (Tests/Workloads/MarkedApp), started here as a user would, with
/// no help from esp, then attached to. The truth is the app's own measurements of its runs (its truth file).
/// </summary>
[EndToEnd]
public sealed class AttachTests(ITestOutputHelper output) : IDisposable
{
    private readonly string _dir = Repo.NewTempDir("attach");
    private readonly List<Process> _apps = [];

    public void Dispose()
    {
        foreach (var app in _apps)
        {
            try { if (!app.HasExited) app.Kill(entireProcessTree: true); } catch (InvalidOperationException) { } // exited meanwhile
            app.Dispose();
        }
        FileCleanup.TryDeleteDirectory(_dir); // a temp folder: left for the OS
    }

    private sealed record RunTruth(string Name, string Operation, int N, int Run, bool Warmup, double DurationMs, double OuterDurationMs, double CpuMs);

    /// <summary>Starts MarkedApp untraced and waits for its first line: by then its runtime and the long first run are under way.</summary>
    private Process StartApp(string truthPath, params string[] args)
    {
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, UseShellExecute = false };
        foreach (var a in new[] { MarkedAppTests.MarkedAppDll, "--truth", truthPath }.Concat(args)) start.ArgumentList.Add(a);
        var app = Process.Start(start)!;
        _apps.Add(app);
        Assert.Equal("long run started", app.StandardOutput.ReadLine());
        return app;
    }

    [Fact]
    public async Task Attached_mid_run_it_records_until_the_app_exits_names_code_compiled_before_and_leaves_the_cut_run_out()
    {
        var truthPath = Path.Combine(_dir, "truth.json");
        // The long run holds 3 s: the attach (under a second here) lands inside it.
        var app = StartApp(truthPath, "--long-run-ms", "3000", "--runs", "12", "--warmup", "2");
        var (exit, folder, text) = await Recording.RecordAsync(Path.Combine(_dir, "trace"), ["--pid", app.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]);
        output.WriteLine(text);
        Assert.Equal(0, exit);
        Assert.True(app.HasExited, "the recording ended before the app did");
        var manifest = TraceManifest.Load(folder.Manifest);
        Assert.Equal(new AttachInfo(ProcessExited: true), manifest.Attached);
        Assert.Equal(app.Id, manifest.ChildProcessId);
        Assert.Null(manifest.ChildExitCode);
        Assert.Equal(RecordingStatus.Complete, manifest.Status);
        Assert.Contains($"attached to process {app.Id}, which exited while recorded", text, StringComparison.Ordinal);

        using var input = TraceInput.Open(folder.Path);
        var analysis = new TraceAnalyzer(new AnalyzerOptions { CollectHotMethods = true }).Analyze(input);
        var truth = JsonSerializer.Deserialize<List<RunTruth>>(File.ReadAllText(truthPath))!;
        // The long run began before the attach: said, and left out. Every later run is found, with the app's numbers.
        Assert.Contains(analysis.Warnings, w => w.Contains("began before the trace (attached mid-run): left out", StringComparison.Ordinal) && w.Contains("Long", StringComparison.Ordinal));
        Assert.DoesNotContain(analysis.Runs, r => r.Key.Serializer == "Long");
        Assert.Equal(truth.Where(t => t.Name != "Long").Select(t => (t.Name, t.Operation, t.N, t.Run)),
            analysis.Runs.Select(r => (r.Key.Serializer, r.Key.Operation, r.Key.Objects, r.Key.Run)));
        foreach (var (run, t) in analysis.Runs.Zip(truth.Where(t => t.Name != "Long")))
            WindowTruth.AssertAgrees(run, t.DurationMs, t.OuterDurationMs);

        // The sieve is compiled after the attach here: named from its load events (the next test names code compiled before).
        var sieve = analysis.HotMethods[("Primes", "sieve", 2_000_000)];
        var top = sieve.Values.MaxBy(m => m.ExclusiveMs)!;
        output.WriteLine($"Primes top method: {top.Name} {top.ExclusiveMs:F1} ms");
        Assert.Contains("MarkedWork.Sieve", top.Name, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Attached_for_a_duration_it_detaches_and_the_app_runs_on_to_a_normal_exit()
    {
        var truthPath = Path.Combine(_dir, "truth.json");
        // About 100 ms a run: 120 runs outlast the 2 s wait, the 2 s recording and its 0.5 s detach with some 6 s to spare.
        var app = StartApp(truthPath, "--long-run-ms", "200", "--runs", "120", "--warmup", "2");
        // Warm: the sieve and the serializer are compiled before the attach, so only the rundown can name them.
        await Task.Delay(2000);
        var (exit, folder, text) = await Recording.RecordAsync(Path.Combine(_dir, "trace"), ["--pid", app.Id.ToString(System.Globalization.CultureInfo.InvariantCulture), "--duration", "2"]);
        output.WriteLine(text);
        Assert.Equal(0, exit);
        Assert.False(app.HasExited, "the app ended with the recording");
        var manifest = TraceManifest.Load(folder.Manifest);
        Assert.Equal(new AttachInfo(ProcessExited: false), manifest.Attached);
        Assert.InRange(manifest.DurationSeconds!.Value, 1.5, 30);

        using (var input = TraceInput.Open(folder.Path))
        {
            var analysis = new TraceAnalyzer(new AnalyzerOptions { CollectHotMethods = true }).Analyze(input);
            Assert.True(analysis.Trace.HasRundown, "no rundown at the detach");
            Assert.True(analysis.Runs.Count >= 3, $"{analysis.Runs.Count} runs in 2 s");
            var sieve = analysis.HotMethods.Single(h => h.Key.Serializer == "Primes").Value;
            Assert.Contains("MarkedWork.Sieve", sieve.Values.MaxBy(m => m.ExclusiveMs)!.Name, StringComparison.Ordinal);
        }
        // The app never knew: it runs to its end and exits 0.
        Assert.True(app.WaitForExit(120_000), "the app did not finish");
        Assert.Equal(0, app.ExitCode);
    }

    [Fact]
    public async Task A_pid_that_is_not_there_or_not_dotnet_is_one_line_and_leaves_no_folder()
    {
        var outDir = Path.Combine(_dir, "none");
        var missing = await Assert.ThrowsAsync<UsageException>(() => Recording.RecordAsync(outDir, ["--pid", "999999999"]));
        Assert.Equal("--pid 999999999: no such process", missing.Message);
        using var sleep = Process.Start("sleep", "30");
        try
        {
            var notDotnet = await Assert.ThrowsAsync<UsageException>(() => Recording.RecordAsync(outDir, ["--pid", sleep.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]));
            Assert.StartsWith($"--pid {sleep.Id} (sleep) has no .NET diagnostic port", notDotnet.Message, StringComparison.Ordinal);
        }
        finally { sleep.Kill(); }
        Assert.False(Directory.Exists(outDir));
        // What only a process esp starts can take is refused before anything.
        var clash = Assert.Throws<UsageException>(() => global::EtwSerializerProfiler.Cli.Commands.RecordVerb.Parse(["--pid", "1", "--env", "A=1"]));
        Assert.Equal("--pid 1 attaches to a running process: --env is for a process esp starts", clash.Message);
        Assert.Equal("--duration is for --pid (a process esp starts is recorded until it exits)",
            Assert.Throws<UsageException>(() => global::EtwSerializerProfiler.Cli.Commands.RecordVerb.Parse(["--duration", "3"])).Message);
    }
}
