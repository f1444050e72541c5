using System.Diagnostics;
using System.Text;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Recorder;
using EtwSerializerProfiler.Tests.Recorder.Kernel;
using EtwSerializerProfiler.Tests.Recorder.Processes;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// The rest of the fault matrix (docs/recorder.md, "When things go wrong"), each a real `esp record` of the real
/// benchmark hit at one point: kill -9 of esp during warm-up and while it converts the kernel session, kill -9 of
/// perf, kill -9 of the benchmark, the trace folder removed. Each: no process left, a documented exit code, and
/// `esp analyze` of what is left reads, says where the data stops, and shows a run no CPU source covers as missing.
/// (Disk full: DiskFullTests; kill -9 of esp during the measured runs: KilledRecordingTests.)
/// </summary>
[EndToEnd]
public sealed class RecordingFaultMatrixTests(ITestOutputHelper output) : IDisposable
{
    private readonly string _dir = Repo.NewTempDir("faults");
    /// <summary>The host's steal when the test began: a killed esp writes no manifest to say how much it took.</summary>
    private readonly double _stealAtStart = HostSteal.ReadMs() ?? 0;
    private static string Esp => Path.Combine(Repo.BinDir, "esp.dll");

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }

    // CPU-bound runs of one serializer. With a fixed warm-up the calls per run are sized on code the JIT has not
    // optimized yet, so the measured runs come out far shorter than --run-ms (2 to 50 ms, 2026-11-25). The automatic
    // warm-up (null) sizes them on steady code: measured runs of 70 to 100 ms.
    private static string[] Reflection(string n, int? warmups, int runs) =>
        ["--n", n, "--warmup", warmups?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "auto", "--runs", runs.ToString(System.Globalization.CultureInfo.InvariantCulture),
            "--run-ms", "100", "--test", "serialize", "--serializers", "Reflection"];

    [PlatformFact("Linux", "the kernel session is perf's; the parent-death signal is Linux's")]
    public async Task Kill_9_of_esp_during_warm_up_leaves_warm_up_runs_that_analyze()
    {
        Assert.True(PerfTool.Locate() is not null, PerfTool.NotFoundReason());
        var folder = Path.Combine(_dir, "warmup");
        // 40 warm-up runs of 100 ms: 4 s of warm-up; the kill comes 2.5 s into it (perf's data reaches about 1 s before).
        await using var esp = EspRecord.Start(folder, Reflection("5000", 40, 5));
        await esp.WaitForLine("[1/1] Reflection N=5000");
        await Task.Delay(TimeSpan.FromSeconds(2.5));
        var children = esp.KillAndCheckChildrenGone(c => c.Contains("perf record", StringComparison.Ordinal));
        output.WriteLine($"killed esp {esp.Id}; its children {string.Join(", ", children)}");

        Assert.False(File.Exists(Path.Combine(folder, TraceFolderLayout.Manifest)));
        Assert.False(File.Exists(Path.Combine(folder, TraceFolderLayout.ResultsJson)));
        var text = Analyze(folder);
        var cut = Assert.Single(Lines(text), l => l.StartsWith("warning: the recording was cut: no manifest.json (the recorder did not finish)", StringComparison.Ordinal));
        Assert.Contains("(warm-up), which ended at", cut);
        Assert.Contains("(0 measured and", cut);
        Assert.Contains("CPU: kernel session (perf)", text);
        Assert.DoesNotContain("the process was killed?", text);
        // No measured run: the row's CPU is missing, never 0.
        Assert.Equal("-", CpuCell(text, "5000"));

        var analysis = AnalyzeInProcess(folder);
        Assert.Equal(CpuSourceKind.Perf, analysis.Trace.CpuSource);
        Assert.NotEmpty(analysis.Runs);
        Assert.All(analysis.Runs, r => Assert.True(r.IsWarmup, $"{r.Key} is measured, in a recording killed during warm-up"));
        HeldWithoutClock(analysis, minRuns: 3);
        AssertUncoveredAfterCovered(analysis);
    }

    [PlatformFact("Linux", "the kernel session is perf's; the parent-death signal is Linux's")]
    public async Task Kill_9_of_esp_while_it_converts_the_kernel_session_leaves_every_run_analyzable()
    {
        Assert.True(PerfTool.Locate() is not null, PerfTool.NotFoundReason());
        var folder = Path.Combine(_dir, "converting");
        // perf script takes 0.2 s here, less on small data: a poll missed it twice. A perf that stays 60 s after its
        // real `perf script` (a bash builtin wait: no grandchild) keeps esp converting until the test kills it.
        var slow = SlowScriptPerf();
        await using var esp = EspRecord.Start(folder, Reflection("5000", 3, 30), new() { [PerfTool.PerfVariable] = slow.Perf });
        await esp.WaitForLine("kernel session: converting perf data (perf script)");
        var clock = Stopwatch.StartNew();
        while (!File.Exists(slow.Done) && clock.Elapsed < TimeSpan.FromSeconds(60) && !esp.HasExited)
            await Task.Delay(20);
        Assert.True(File.Exists(slow.Done), $"the real perf script did not end within 60 s: {esp.Log}");
        var children = esp.KillAndCheckChildrenGone(c => c.Contains(slow.Perf + " script", StringComparison.Ordinal));
        output.WriteLine($"killed esp {esp.Id} {clock.ElapsedMilliseconds} ms after it said it converts; its children {string.Join(", ", children)}");

        // The benchmark had ended (results.json is its last act); the text was half written, under its own name.
        Assert.True(File.Exists(Path.Combine(folder, TraceFolderLayout.ResultsJson)));
        Assert.False(File.Exists(Path.Combine(folder, TraceFolderLayout.KernelScript)), "a half-written kernel session text under the name the analyzer reads");
        Assert.True(File.Exists(Path.Combine(folder, TraceFolderLayout.KernelScript + ".partial")));
        var text = Analyze(folder);
        var cut = Assert.Single(Lines(text), l => l.StartsWith("warning: the recording was cut: no manifest.json", StringComparison.Ordinal));
        Assert.Contains($"esp record was converting the kernel session when it ended ({TraceFolderLayout.KernelScript}.partial left)", cut);
        Assert.Contains("(30 measured and", cut);
        Assert.Contains($"{TraceFolderLayout.KernelData} had no {TraceFolderLayout.KernelScript} (the recorder did not finish): converted now with perf script", text);
        Assert.DoesNotContain("CPU columns are missing", text);

        // perf had finished its file: every run is covered and held to the benchmark's thread CPU clock.
        var analysis = AnalyzeInProcess(folder);
        Assert.Equal(CpuSourceKind.Perf, analysis.Trace.CpuSource);
        Assert.Equal(30, analysis.Runs.Count(r => r.IsMeasured));
        Assert.All(analysis.Runs, r => Assert.True(r.CpuKnown, $"{r.Key} has no CPU source"));
        Assert.True(HeldToThreadClock(analysis, folder) >= 25, "fewer than 25 measured runs held to the thread CPU clock");
    }

    /// <summary>
    /// A perf named perf that runs the real one, and after a `perf script` writes <c>Done</c> and waits 60 s in a bash
    /// builtin (no child of its own to outlive it), writing a blank line to esp every 50 ms: it ends when that fails
    /// (.NET starts children with SIGPIPE ignored), as perf script does.
    /// </summary>
    private (string Perf, string Done) SlowScriptPerf()
    {
        var dir = Directory.CreateDirectory(Path.Combine(_dir, "slow-perf")).FullName;
        var (path, done, fifo) = (Path.Combine(dir, "perf"), Path.Combine(dir, "script-done"), Path.Combine(dir, "wait"));
        File.WriteAllText(path, $"""
            #!/bin/bash
            [ "$1" = script ] || exec '{PerfTool.Locate()}' "$@"
            '{PerfTool.Locate()}' "$@"; status=$?
            mkfifo '{fifo}' 2>/dev/null; exec 3<>'{fifo}'; : > '{done}'
            for ((i = 0; i < 1200; i++)); do echo 2>/dev/null || exit 1; read -r -t 0.05 -u 3; done; exit $status

            """);
        if (!OperatingSystem.IsWindows()) File.SetUnixFileMode(path, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        return (path, done);
    }

    [PlatformFact("Linux", "the kernel session is perf's")]
    public async Task Perf_killed_mid_recording_is_noticed_and_the_runs_after_it_have_no_CPU()
    {
        Assert.True(PerfTool.Locate() is not null, PerfTool.NotFoundReason());
        var folder = Path.Combine(_dir, "perf");
        // Two cases: perf is killed as the second begins. perf's data reaches to its last flush (up to 1 s before), so the
        // first case keeps most of its measured runs' kernel session and the second's measured runs have none.
        await using var esp = EspRecord.Start(folder, Reflection("5000,5001", null, 40));
        await esp.WaitForLine("[2/2] Reflection N=5001");
        var perf = Assert.Single(RecorderKillTests.ChildrenOf(esp.Id), c => c.CommandLine.Contains("perf record", StringComparison.Ordinal));
        var killedAt = DateTime.UtcNow;
        Process.GetProcessById(perf.Pid).Kill(); // SIGKILL
        var children = RecorderKillTests.ChildrenOf(esp.Id);
        var exit = await esp.WaitForExit(TimeSpan.FromSeconds(120));
        output.WriteLine(esp.Log);

        // The recording goes on and ends as usual (EventPipe's trace is whole); the line and the manifest say what died.
        Assert.Equal(ExitCodes.Ok, exit);
        Assert.Contains($"kernel session: perf (pid {perf.Pid}) was killed by signal 9 (SIGKILL)", esp.Log);
        Assert.Contains("while the recorded process ran: its data ends here, EventPipe records on", esp.Log);
        esp.AssertGone(children);
        var manifest = TraceManifest.Load(Path.Combine(folder, TraceFolderLayout.Manifest));
        Assert.Equal(RecordingStatus.Complete, manifest.Status);
        var died = Assert.IsType<KernelSessionDeath>(manifest.Kernel!.Died);
        Assert.Contains("was killed by signal 9 (SIGKILL)", died.Reason);
        // Noticed within the recorder's poll (250 ms) of the kill; 2 s allows a busy machine.
        Assert.InRange((died.AtUtc - killedAt).TotalSeconds, -0.5, 2.0);
        Assert.InRange(died.AtSeconds, 1.0, manifest.DurationSeconds ?? double.MaxValue);

        var text = Analyze(folder);
        var line = Assert.Single(Lines(text), l => l.StartsWith("warning: the kernel session died ", StringComparison.Ordinal));
        Assert.Contains("their CPU columns are missing (-), EventPipe's sampler was off beside it", line);
        Assert.Contains($"{TraceFolderLayout.KernelData} had no {TraceFolderLayout.KernelScript} (perf died ", text);
        // The second case's row: no CPU source covers any of its runs, so its CPU ms is -, never 0.
        Assert.Equal("-", CpuCell(text, "5001"));
        Assert.NotEqual("-", CpuCell(text, "5000")); // the runs before perf died

        var analysis = AnalyzeInProcess(folder);
        Assert.Equal(CpuSourceKind.Perf, analysis.Trace.CpuSource);
        Assert.All(analysis.Runs.Where(r => r.Key.Objects == 5001 && r.IsMeasured), r => Assert.False(r.CpuKnown, $"{r.Key} has CPU after perf died"));
        Assert.Contains(analysis.Runs, r => r.Key.Objects == 5000 && r.IsMeasured && r.CpuKnown);
        AssertUncoveredAfterCovered(analysis);
        // The kernel data ends about a second (perf's flush) before the kill, never after it.
        var lastCovered = analysis.Runs.Where(r => r.CpuKnown).Max(r => r.EndMs) / 1000;
        Assert.True(lastCovered <= died.AtSeconds + 0.5, $"a run with CPU ends at {lastCovered:F1} s, after perf died at {died.AtSeconds:F1} s");
        Assert.True(HeldToThreadClock(analysis, folder) >= 3, "fewer than 3 measured runs before perf died held to the thread CPU clock");
    }

    [PlatformFact("Linux", "the kernel session is perf's")]
    public async Task The_benchmark_killed_mid_recording_ends_the_recording_cleanly()
    {
        Assert.True(PerfTool.Locate() is not null, PerfTool.NotFoundReason());
        var folder = Path.Combine(_dir, "child");
        // Killed 1 s into its second case: the first one's measured runs are whole.
        await using var esp = EspRecord.Start(folder, Reflection("5000,5001", null, 40));
        await esp.WaitForLine("[2/2] Reflection N=5001");
        await Task.Delay(TimeSpan.FromSeconds(1));
        var children = RecorderKillTests.ChildrenOf(esp.Id);
        // The recorded process, by the pid esp printed ("recording process PID with profile ...").
        var pid = int.Parse(System.Text.RegularExpressions.Regex.Match(esp.Log, @"recording process (\d+) with profile").Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture);
        var child = Assert.Single(children, c => c.Pid == pid);
        Assert.Contains("SerializerBenchmark.dll", child.CommandLine);
        Process.GetProcessById(child.Pid).Kill(); // SIGKILL
        var exit = await esp.WaitForExit(TimeSpan.FromSeconds(120));
        output.WriteLine(esp.Log);

        Assert.Equal(ExitCodes.Failed, exit);
        var line = Assert.Single(Lines(esp.Log), l => l.StartsWith("esp record:", StringComparison.Ordinal));
        Assert.StartsWith($"esp record: the recorded process {child.Pid} was killed by signal 9 (SIGKILL) ", line, StringComparison.Ordinal);
        Assert.Contains("sessions stopped, what it had recorded is kept", line);
        Assert.DoesNotContain("internal error", esp.Log);
        esp.AssertGone(children);
        var manifest = TraceManifest.Load(Path.Combine(folder, TraceFolderLayout.Manifest));
        Assert.Equal(RecordingStatus.ChildCrashed, manifest.Status);
        Assert.Equal(128 + 9, manifest.ChildExitCode);
        Assert.Equal(KernelSessionInfo.Recorded, manifest.Kernel!.Status);
        Assert.Null(manifest.Kernel.Died); // perf ended because the process did: not a death of its own

        var text = Analyze(folder);
        Assert.Contains("warning: no rundown: the recorded process was killed by signal 9 (SIGKILL) (manifest status ChildCrashed)", text);
        Assert.DoesNotContain("the process was killed?", text);
        var analysis = AnalyzeInProcess(folder);
        Assert.Equal(CpuSourceKind.Perf, analysis.Trace.CpuSource);
        Assert.Contains(analysis.Runs, r => r.IsMeasured);
        // perf ran to the process's end: every run the trace holds is covered (held without a thread clock: no results.json).
        Assert.All(analysis.Runs, r => Assert.True(r.CpuKnown, $"{r.Key} has no CPU source"));
        HeldWithoutClock(analysis, minRuns: 5);
    }

    [PlatformFact("Linux", "an open file outlives its removed folder on Unix")]
    public Task The_trace_folder_removed_mid_recording_is_one_line_and_exit_5() =>
        RemoveTheFolder("removed", "[1/1] Reflection N=5000", TimeSpan.FromSeconds(1));

    [PlatformFact("Linux", "the kernel session is perf's")]
    public Task The_trace_folder_removed_while_esp_converts_the_kernel_session_is_one_line_and_exit_5()
    {
        Assert.True(PerfTool.Locate() is not null, PerfTool.NotFoundReason());
        return RemoveTheFolder("removed-late", "kernel session: converting perf data (perf script)", TimeSpan.Zero);
    }

    private async Task RemoveTheFolder(string name, string after, TimeSpan delay)
    {
        // The moment to remove the folder must come while esp still runs: on a loaded CI machine a recording's conversion
        // was once not announced before esp ended (1 of 3 runs), so up to three recordings are tried for that moment.
        for (var attempt = 1; ; attempt++)
        {
            var folder = Path.Combine(_dir, $"{name}-{attempt}");
            await using var esp = EspRecord.Start(folder, Reflection("5000", null, 40));
            if (!await esp.TryWaitForLine(after) && attempt < 3)
            {
                output.WriteLine($"attempt {attempt}: esp ended before '{after}'; trying again:\n{esp.Log}");
                continue;
            }
            await esp.WaitForLine(after);
            await RemoveTheFolder(esp, folder, delay);
            return;
        }
    }

    private async Task RemoveTheFolder(EspRecord esp, string folder, TimeSpan delay)
    {
        await Task.Delay(delay);
        var children = RecorderKillTests.ChildrenOf(esp.Id);
        RemoveWhileWritten(folder);
        var removedAt = Stopwatch.StartNew();
        var exit = await esp.WaitForExit(TimeSpan.FromSeconds(60));
        output.WriteLine($"esp ended {removedAt.Elapsed.TotalSeconds:F1} s after the folder was removed:\n{esp.Log}");

        Assert.Equal(ExitCodes.WriteFailed, exit);
        var line = Assert.Single(Lines(esp.Log), l => l.StartsWith("esp record:", StringComparison.Ordinal));
        // rm -rf takes the files first: the recorder may see the trace file gone before the folder (TraceFolderGone).
        Assert.True(line.StartsWith($"esp record: the trace folder {folder} was removed ", StringComparison.Ordinal)
            || line.StartsWith($"esp record: trace.nettrace was removed from {folder}", StringComparison.Ordinal), line);
        Assert.Contains("sessions stopped, the recorded process stopped, nothing is kept", line);
        Assert.DoesNotContain("internal error", esp.Log);
        Assert.DoesNotContain("Unhandled exception", esp.Log);
        Assert.DoesNotContain(Lines(esp.Log), l => l.StartsWith("at ", StringComparison.Ordinal));
        esp.AssertGone(children);
        Assert.Empty(KernelSessionFaultTests.PerfProcessesFor(folder));
        Assert.False(Directory.Exists(folder), "the recorder made the removed folder again");
        // Noticed at the recorder's next look (4 a second), then the child gets SIGINT: seconds, not the recording's length.
        Assert.True(removedAt.Elapsed < TimeSpan.FromSeconds(30), $"esp ended {removedAt.Elapsed.TotalSeconds:F0} s after the folder was removed");
        foreach (var saved in children.Select(c => BenchmarkResults.FallbackPath(c.Pid)).Where(File.Exists)) File.Delete(saved);
    }

    /// <summary>
    /// rm -rf of a folder being written to: a file made between listing it and removing it ("Directory not empty",
    /// seen in CI while perf script started its output) is taken on the next try.
    /// </summary>
    private static void RemoveWhileWritten(string folder)
    {
        for (var attempt = 0; ; attempt++)
        {
            try
            {
                Directory.Delete(folder, recursive: true);
                return;
            }
            catch (IOException) when (attempt < 50)
            {
                Thread.Sleep(20);
            }
        }
    }

    private string Analyze(string folder)
    {
        var r = ProcessRunner.Dotnet(Esp, "analyze", folder, "--tables", "all"); // warnings whole, one line each
        var text = r.StdOut + r.StdErr;
        output.WriteLine(text);
        Assert.True(r.ExitCode == ExitCodes.Ok, $"esp analyze exit {r.ExitCode}: {r.StdErr}");
        return text;
    }

    private static TraceAnalysis AnalyzeInProcess(string folder)
    {
        using var input = TraceInput.Open(folder);
        return new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
    }

    /// <summary>The "CPU ms" cell of Reflection's row at N in the first per-serializer table (columns are right-aligned under their names).</summary>
    private static string CpuCell(string text, string n)
    {
        var lines = text.Split('\n');
        var header = Array.FindIndex(lines, l => l.StartsWith("Serializer ", StringComparison.Ordinal) && l.Contains(" CPU ms ", StringComparison.Ordinal));
        Assert.True(header >= 0, "no per-serializer table with a CPU ms column");
        var end = lines[header].IndexOf(" CPU ms ", StringComparison.Ordinal) + " CPU ms".Length;
        var row = lines.Skip(header + 1).TakeWhile(l => l.Trim().Length > 0).Single(l => l.Split(' ', StringSplitOptions.RemoveEmptyEntries) is [ "Reflection", var count, ..] && count == n);
        return row[..end].Split(' ', StringSplitOptions.RemoveEmptyEntries)[^1];
    }

    private static List<string> Lines(string text) => [.. text.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)];

    /// <summary>A kernel session cut at one point in time: a run without a CPU source comes after every run with one.</summary>
    private static void AssertUncoveredAfterCovered(TraceAnalysis analysis)
    {
        var firstUnknown = analysis.Runs.Where(r => !r.CpuKnown).Select(r => r.StartMs).DefaultIfEmpty(double.MaxValue).Min();
        Assert.All(analysis.Runs.Where(r => r.CpuKnown), r => Assert.True(r.EndMs <= firstUnknown + 1e-6, $"{r.Key} has CPU after a run without"));
    }

    /// <summary>
    /// Measured runs with a CPU source against the benchmark's thread CPU clock (<see cref="ThreadClockBounds"/>). The
    /// steal is the manifest's, else the host's since the test began (a CI run, kill -9 while converting: a run read
    /// 32.04 ms against its clock's 25.04 with no manifest to say the steal).
    /// </summary>
    private int HeldToThreadClock(TraceAnalysis analysis, string folder) =>
        ThreadClockBounds.AssertHeld(analysis.Runs, ThreadClockBounds.StealMs(folder, _stealAtStart), output);

    /// <summary>
    /// Runs with a CPU source and no thread clock (the benchmark died before results.json): the bounds KilledRecordingTests
    /// holds them to. On-CPU time inside the window, samples in a CPU-bound run, and on-CPU plus off-CPU time equal to the window.
    /// </summary>
    private void HeldWithoutClock(TraceAnalysis analysis, int minRuns)
    {
        var period = analysis.Trace.Kernel!.SamplePeriodMs;
        var held = 0;
        foreach (var run in analysis.Runs.Where(r => r.CpuKnown && r.DurationMs >= 20))
        {
            var offCpu = run.OffCpuMs.Values.Sum();
            output.WriteLine($"{run.Key}: wall {run.DurationMs:F2} ms, on-CPU {run.CpuMs:F2}, off-CPU {offCpu:F2}, {run.Samples} samples");
            Assert.InRange(run.CpuMs, double.Epsilon, run.DurationMs + 2 * period);
            Assert.True(run.Samples > 0, $"{run.Key}: no CPU sample in a {run.DurationMs:F1} ms run of a CPU-bound serializer");
            Assert.True(Math.Abs(run.CpuMs + offCpu - run.DurationMs) <= Math.Max(2 * period + 0.5, 0.05 * run.DurationMs),
                $"{run.Key}: on {run.CpuMs:F2} + off {offCpu:F2} ms against a {run.DurationMs:F2} ms window");
            held++;
        }
        Assert.True(held >= minRuns, $"only {held} runs of 20 ms or more with a CPU source");
    }

    /// <summary>A real `esp record` process, its output gathered line by line; killed with its children however the test ends.</summary>
    private sealed class EspRecord : IAsyncDisposable
    {
        private readonly Process _esp;
        private readonly StringBuilder _log = new();
        private readonly List<(string Text, TaskCompletionSource Seen)> _waits = [];
        private readonly Task _pumps;

        private EspRecord(Process esp)
        {
            _esp = esp;
            _pumps = Task.WhenAll(Pump(esp.StandardError), Pump(esp.StandardOutput));
        }

        public int Id => _esp.Id;
        public bool HasExited => _esp.HasExited;
        public string Log { get { lock (_log) return _log.ToString(); } }

        public static EspRecord Start(string folder, string[] benchmark, Dictionary<string, string>? environment = null)
        {
            var psi = new ProcessStartInfo("dotnet") { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
            foreach (var (name, value) in environment ?? []) psi.Environment[name] = value;
            foreach (var a in (string[])[Esp, "record", "--out", folder, .. benchmark]) psi.ArgumentList.Add(a);
            return new EspRecord(Process.Start(psi)!);
        }

        private async Task Pump(StreamReader reader)
        {
            while (await reader.ReadLineAsync() is { } line)
                lock (_log)
                {
                    _log.AppendLine(line);
                    foreach (var (text, seen) in _waits) if (line.Contains(text, StringComparison.Ordinal)) seen.TrySetResult();
                }
        }

        /// <summary>Whether esp printed the line while it still ran (false: it ended first, or 180 s went by).</summary>
        public async Task<bool> TryWaitForLine(string text)
        {
            var seen = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            lock (_log)
            {
                if (_log.ToString().Contains(text, StringComparison.Ordinal)) return !_esp.HasExited;
                _waits.Add((text, seen));
            }
            await Task.WhenAny(seen.Task, _esp.WaitForExitAsync(), Task.Delay(TimeSpan.FromSeconds(180)));
            return seen.Task.IsCompleted && !_esp.HasExited;
        }

        public async Task WaitForLine(string text)
        {
            var seen = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            lock (_log)
            {
                if (_log.ToString().Contains(text, StringComparison.Ordinal)) return;
                _waits.Add((text, seen));
            }
            await Task.WhenAny(seen.Task, _esp.WaitForExitAsync(), Task.Delay(TimeSpan.FromSeconds(180)));
            Assert.True(seen.Task.IsCompleted, $"esp record never printed '{text}': {Log}");
            Assert.False(_esp.HasExited, $"esp record ended after '{text}', before the fault: {Log}");
        }

        /// <summary>kill -9 of esp alone; then every child it had (one of them <paramref name="expected"/>) must be gone.</summary>
        public List<(int Pid, string CommandLine)> KillAndCheckChildrenGone(Func<string, bool> expected)
        {
            Assert.False(_esp.HasExited, $"esp record ended before it could be killed: {Log}");
            var children = RecorderKillTests.ChildrenOf(_esp.Id);
            Assert.True(children.Any(c => expected(c.CommandLine)), $"esp's children when killed: {string.Join("; ", children.Select(c => c.CommandLine))}\n{Log}");
            _esp.Kill(entireProcessTree: false); // SIGKILL to esp alone, as `kill -9` would
            _esp.WaitForExit();
            AssertGone(children);
            return children;
        }

        /// <summary>esp and each child it had are gone (a few seconds: the parent-death signal, or SIGPIPE for perf script).</summary>
        public void AssertGone(List<(int Pid, string CommandLine)> children)
        {
            Assert.True(ChildProcessLauncherTests.GoneWithin(_esp.Id, TimeSpan.FromSeconds(5)), $"esp {_esp.Id} still runs");
            foreach (var (pid, commandLine) in children)
                Assert.True(ChildProcessLauncherTests.GoneWithin(pid, TimeSpan.FromSeconds(5)), $"esp's child {pid} ({commandLine}) still runs");
        }

        public async Task<int> WaitForExit(TimeSpan limit)
        {
            await Task.WhenAny(_esp.WaitForExitAsync(), Task.Delay(limit));
            Assert.True(_esp.HasExited, $"esp record still runs {limit.TotalSeconds:F0} s after the fault: {Log}");
            await _pumps.WaitAsync(TimeSpan.FromSeconds(10));
            return _esp.ExitCode;
        }

        public async ValueTask DisposeAsync()
        {
            // Whatever failed: nothing of this test runs on (esp and every child it has now).
            if (!_esp.HasExited)
            {
                foreach (var (pid, _) in RecorderKillTests.ChildrenOf(_esp.Id)) { try { Process.GetProcessById(pid).Kill(); } catch (ArgumentException) { } } // exited already
                _esp.Kill(entireProcessTree: true);
            }
            await _pumps.WaitAsync(TimeSpan.FromSeconds(10)).ContinueWith(_ => { });
            _esp.Dispose();
        }
    }
}
