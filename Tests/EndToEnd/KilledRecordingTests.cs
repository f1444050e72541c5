using System.Diagnostics;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Recorder;
using EtwSerializerProfiler.Tests.Recorder.Processes;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// `kill -9` of a real `esp record` during the measured runs, then `esp analyze` of what reached disk: the trace,
/// and perf's kernel.perf.data that perf (killed with esp) never finished. No manifest, no perf script text, no
/// results.json. The analysis must say the recording was cut, convert and use the kernel session, and give the runs
/// that completed their on-CPU time.
/// </summary>
[EndToEnd]
public sealed class KilledRecordingTests(ITestOutputHelper output)
{
    // Two cases of the same CPU-bound serializer, runs of a known length (about 100 ms, 80 measured, 3 warm-ups): the
    // first is whole once the benchmark says it starts the second; the kill comes 2.5 s into the second's 8 s of runs.
    // With 40 runs a CI run under load found the recording already over at the kill (perf script running, no perf
    // record): runs sized by a pilot on a slowed machine, or the line read late, left less than 2.5 s of it.
    private const int Runs = 80;
    private static readonly string[] Benchmark =
        ["--n", "5000,5001", "--runs", $"{Runs}", "--warmup", "3", "--run-ms", "100", "--test", "serialize", "--serializers", "Reflection"];
    private const string SecondCase = "[2/2] Reflection N=5001";
    private static readonly TimeSpan IntoSecondCase = TimeSpan.FromSeconds(2.5);

    [PlatformFact("Linux", "the kernel session is perf's")]
    public async Task Analyze_after_kill_9_says_where_the_recording_was_cut_and_uses_the_kernel_session()
    {
        Assert.True(PerfTool.Locate() is not null, PerfTool.NotFoundReason());
        var dir = Repo.NewTempDir("killed");
        var folder = Path.Combine(dir, "t");
        var psi = new ProcessStartInfo("dotnet") { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var a in (string[])[Path.Combine(Repo.BinDir, "esp.dll"), "record", "--out", folder, .. Benchmark]) psi.ArgumentList.Add(a);
        var stealAtStart = HostSteal.ReadMs() ?? 0;
        using var esp = Process.Start(psi)!;
        var secondCase = new TaskCompletionSource();
        var log = new System.Text.StringBuilder();
        var stderr = Task.Run(async () =>
        {
            while (await esp.StandardError.ReadLineAsync() is { } line)
            {
                lock (log) log.AppendLine(line);
                if (line.Contains(SecondCase, StringComparison.Ordinal)) secondCase.TrySetResult();
            }
        });
        _ = esp.StandardOutput.ReadToEndAsync();
        try
        {
            await Task.WhenAny(secondCase.Task, esp.WaitForExitAsync(), Task.Delay(TimeSpan.FromSeconds(180)));
            Assert.True(secondCase.Task.IsCompleted, $"the benchmark never started its second case: {log}");
            await Task.Delay(IntoSecondCase);
            Assert.False(esp.HasExited, $"esp record ended before it could be killed: {log}");
            var children = RecorderKillTests.ChildrenOf(esp.Id);
            Assert.Contains(children, c => c.CommandLine.Contains("perf record", StringComparison.Ordinal));
            esp.Kill(entireProcessTree: false); // SIGKILL to esp alone, as `kill -9` would
            await esp.WaitForExitAsync();
            // A killed recorder writes no manifest: the test measures the steal the manifest would have held.
            var steal = ThreadClockBounds.StealMs(folder, stealAtStart);
            foreach (var (pid, commandLine) in children)
                Assert.True(ChildProcessLauncherTests.GoneWithin(pid, TimeSpan.FromSeconds(2)), $"esp's child {pid} ({commandLine}) still runs after esp was killed");

            // What reached disk: the trace and perf's data, nothing written at the end.
            Assert.True(File.Exists(Path.Combine(folder, TraceFolderLayout.Trace)));
            Assert.True(File.Exists(Path.Combine(folder, TraceFolderLayout.KernelData)));
            Assert.False(File.Exists(Path.Combine(folder, TraceFolderLayout.Manifest)));
            Assert.False(File.Exists(Path.Combine(folder, TraceFolderLayout.KernelScript)));

            var analyze = ProcessRunner.Dotnet(Path.Combine(Repo.BinDir, "esp.dll"), "analyze", folder, "--tables", "all");
            var text = analyze.StdOut + analyze.StdErr;
            output.WriteLine(text);
            Assert.Equal(0, analyze.ExitCode);
            var cut = Assert.Single(text.Split('\n'), l => l.StartsWith("warning: the recording was cut: no manifest.json (the recorder did not finish)", StringComparison.Ordinal));
            Assert.Contains("after Reflection serialize N=5001 run", cut);
            Assert.Contains($"{TraceFolderLayout.KernelData} had no {TraceFolderLayout.KernelScript} (the recorder did not finish): converted now with perf script", text);
            Assert.Contains("CPU: kernel session (perf)", text);
            Assert.True(File.Exists(Path.Combine(folder, TraceFolderLayout.KernelScript)), "the conversion is kept for the next analysis");

            // The figures, from the text the analysis kept (read again, without converting).
            using var input = TraceInput.Open(folder);
            var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
            Assert.Equal(CpuSourceKind.Perf, analysis.Trace.CpuSource);
            var period = analysis.Trace.Kernel!.SamplePeriodMs;
            var first = analysis.Runs.Where(r => r.Key.Objects == 5000 && r.IsMeasured).ToList();
            Assert.Equal(Runs, first.Count); // the first case completed before the kill
            Assert.All(first, r => Assert.True(r.CpuKnown, $"{r.Key}: no CPU source, yet it ended before the second case began"));
            Assert.Contains(analysis.Runs, r => r.Key.Objects == 5001 && r.IsMeasured); // killed during the measured runs
            // A run without a source comes after every run with one: the kernel session was cut at one point in time.
            if (analysis.Runs.Where(r => !r.CpuKnown).Select(r => r.StartMs).DefaultIfEmpty(double.MaxValue).Min() is var firstUnknown)
                Assert.All(analysis.Runs.Where(r => r.CpuKnown), r => Assert.True(r.EndMs <= firstUnknown + 1e-6, $"{r.Key} has CPU after a run without"));
            // The recorder pings perf every second (PerfSession.FlushInterval), so the session reaches to about a second
            // before the kill; 3 s leaves room for a loaded machine. Without the ping perf wrote every ~7 s: nothing here.
            Assert.True(firstUnknown >= analysis.Trace.DurationMs - 3000,
                $"runs from {firstUnknown / 1000:F1} s have no CPU source, in a trace that ends at {analysis.Trace.DurationMs / 1000:F1} s");

            var held = 0;
            // Runs of 10 ms or more: the pilot sizes runs for 100 ms, but a tier-up mid-case made some as short as 21 ms
            // in a CI run (36 of 40 first-case runs were 20 ms or more then).
            foreach (var run in analysis.Runs.Where(r => r.CpuKnown && r.DurationMs >= 10))
            {
                var offCpu = run.OffCpuMs.Values.Sum();
                output.WriteLine($"{run.Key}: wall {run.DurationMs:F2} ms, on-CPU {run.CpuMs:F2}, off-CPU {offCpu:F2}, {run.Samples} samples, thread clock {run.InProcess?.CpuMs:F2}");
                if (run.InProcess is { } truth)
                {
                    // results.json reached disk after all: held to the worker's thread CPU clock as KernelSessionTruthTests does.
                    Assert.True(Math.Abs(run.CpuMs - truth.CpuMs) <= Math.Max(0.10 * truth.CpuMs, 2.0) + ThreadClockBounds.Stolen(run.CpuMs, truth.CpuMs, steal),
                        $"{run.Key}: {run.CpuMs:F2} ms against the thread CPU clock's {truth.CpuMs:F2} (steal {steal:F0} ms)");
                }
                else
                {
                    // kill -9 takes the benchmark with it before it writes results.json: no thread clock. The bounds that
                    // need none: a single worker is on the CPU at most for its window (give or take a sample period at
                    // each edge); a CPU-bound serializer is on it for some of every 100 ms run (sampled too), however busy
                    // the machine; and on-CPU plus off-CPU time (exact switch-out to switch-in) is the Stopwatch's window,
                    // within KernelSessionTruthTests' tolerance, which a kernel session missing one CPU's records fails.
                    Assert.InRange(run.CpuMs, double.Epsilon, run.DurationMs + 2 * period);
                    Assert.True(run.Samples > 0, $"{run.Key}: no CPU sample in a {run.DurationMs:F1} ms run of a CPU-bound serializer");
                    Assert.True(Math.Abs(run.CpuMs + offCpu - run.DurationMs) <= Math.Max(2 * period + 0.5, 0.05 * run.DurationMs),
                        $"{run.Key}: on {run.CpuMs:F2} + off {offCpu:F2} ms against a {run.DurationMs:F2} ms window");
                }
                held++;
            }
            Assert.True(held >= 40, $"only {held} runs of 10 ms or more with a CPU source");
        }
        finally
        {
            if (!esp.HasExited) esp.Kill(entireProcessTree: true);
            await stderr.WaitAsync(TimeSpan.FromSeconds(10)).ContinueWith(_ => { });
            Directory.Delete(dir, recursive: true);
        }
    }
}
