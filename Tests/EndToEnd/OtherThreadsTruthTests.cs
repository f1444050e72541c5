using System.Text.Json;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Findings;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// What a run costs the whole process (issue 57): the trace's process total (the workers' CPU and the other threads',
/// from the kernel session) held to the process's CPU clock the benchmark reads next to every window
/// (results.json processCpuMs), the roles adding up to the other threads' total, and the other-threads finding on a
/// known answer: a side thread that burns half as much as the worker in one case, nothing beside it in the other.
/// </summary>
[EndToEnd]
[Collection(RecordedBenchmarkCollection.Name)]
public sealed class OtherThreadsTruthTests(RecordedBenchmark recorded, ITestOutputHelper output) : IDisposable
{
    /// <summary>
    /// Per case, the measured runs pooled. Measured (2 loaded cores, this recording's arguments, and --threads 8
    /// --n 1000 DataContract,protobuf-net): -1.0% to -3.3% per case; per run -0.7% to -9.2%; the shared recording here: -0.9% to -4.3% per case,
    /// and -6.3% (Reflection deserialize, a background GC of 8-11 ms a run) with a third process busy on the 2 cores
    /// (CI at 37e8520). The clock is read just outside the window, so it also counts the run marker's hand-over, the run
    /// events' writes and whatever other thread ran meanwhile: the trace reads low, more so on a busy machine.
    /// </summary>
    private const double CaseBound = 0.10;
    /// <summary>
    /// Per run, beside the bound: the hand-over outside the window, as a run's own <see cref="RunSlackMs"/>. Measured:
    /// -4.3% on two 10 ms runs quiet (1.0 ms short); with a core kept busy in CI, Google.Protobuf serialize 7.9 and 8.4
    /// ms against 9.8 and 10.1 (1.7-1.9 ms short a run), where 0.5 ms a run failed the case.
    /// </summary>
    private const double CaseSlackMsPerRun = RunSlackMs;
    /// <summary>One run: short runs move by a millisecond of the marker's hand-over (measured -9.2% on a 38 ms run).</summary>
    private const double RunBound = 0.15;
    private const double RunSlackMs = 2;

    private readonly string _dir = Repo.NewTempDir("other-threads");

    /// <summary>The workload's truth per run (Tests/Workloads/KnownAnswer/SideThreadWorkload.cs).</summary>
    private sealed record SideThreadTruth(string Case, int Run, bool Warmup, double WorkerMs, double SideMs);

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }

    [PlatformFact("Linux", "the kernel session")]
    public void The_trace_s_process_total_is_within_10_percent_of_the_process_CPU_clock_per_case()
    {
        var measured = recorded.Analysis.Runs.Where(r => r.IsMeasured).ToList();
        Assert.NotEmpty(measured);
        // Above the clock, also by the steal the recording measured: the switches count it, the clock does not.
        var steal = ThreadClockBounds.StealMs(recorded.Folder.Path);
        foreach (var run in measured)
        {
            Assert.True(run.OtherThreadsKnown, $"{run.Key}: no other threads' CPU with a kernel session");
            Assert.Equal(run.OtherThreadsCpuMs!.Value, run.OtherThreadsCpu.Values.Sum(), 9);
            var clock = run.InProcess?.ProcessCpuMs ?? throw new Xunit.Sdk.XunitException($"{run.Key}: no processCpuMs in results.json");
            var trace = run.ProcessCpuMs!.Value;
            output.WriteLine($"{run.Key}: workers {run.CpuMs:F1} + other {run.OtherThreadsCpuMs:F1} ({string.Join(", ", run.OtherThreadsCpu.Where(x => x.Value > 0).Select(x => $"{WireNames.Of(x.Key)} {x.Value:F1}"))}) = {trace:F1} ms; clock {clock:F1} ({trace / clock - 1:+0.0%;-0.0%})");
            Assert.True(Math.Abs(trace - clock) <= Math.Max(RunBound * clock, RunSlackMs) + ThreadClockBounds.Stolen(trace, clock, steal), $"{run.Key}: the trace's process total {trace:F1} ms against the clock's {clock:F1} (steal {steal:F0} ms)");
        }
        foreach (var g in measured.GroupBy(r => (r.Key.Serializer, r.Key.Operation)))
        {
            var trace = g.Sum(r => r.ProcessCpuMs!.Value);
            var clock = g.Sum(r => r.InProcess!.ProcessCpuMs!.Value);
            output.WriteLine($"{g.Key}: {trace:F1} ms against {clock:F1} ({trace / clock - 1:+0.0%;-0.0%})");
            Assert.True(Math.Abs(trace - clock) <= CaseBound * clock + CaseSlackMsPerRun * g.Count() + ThreadClockBounds.Stolen(trace, clock, steal), $"{g.Key}: the trace's process total {trace:F1} ms against the clock's {clock:F1} (steal {steal:F0} ms)");
        }
        // Without the kernel session the figure is unknown, never 0.
        Assert.All(recorded.EventPipeAnalysis.Runs, r => Assert.Null(r.OtherThreadsCpuMs));
    }

    [PlatformFact("Linux", "the kernel session")]
    public async Task A_side_thread_burning_half_as_much_makes_the_finding()
    {
        Assert.True(File.Exists(KnownAnswerTests.WorkloadDll), $"{KnownAnswerTests.WorkloadDll} not built");
        var truthPath = Path.Combine(_dir, "truth.json");
        // 1 warm-up and 3 measured runs of 60 ms of the worker's CPU per case: a few seconds.
        var (exit, folder, _) = await Recording.RecordAsync(Path.Combine(_dir, "trace"),
            ["--", "dotnet", KnownAnswerTests.WorkloadDll, "--workload", "sidethread", "--runs", "4", "--run-ms", "60", "--truth", truthPath]);
        Assert.Equal(0, exit);
        var truth = JsonSerializer.Deserialize<List<SideThreadTruth>>(File.ReadAllText(truthPath))!.Where(t => !t.Warmup).ToList();
        using var input = TraceInput.Open(folder.Path);
        var analysis = new TraceAnalyzer(new AnalyzerOptions { CacheEtlx = false }).Analyze(input);
        Assert.Equal(CpuSourceKind.Perf, analysis.Trace.CpuSource);
        var steal = ThreadClockBounds.StealMs(folder.Path);
        var aloneShare = double.NaN;
        foreach (var c in new[] { "Alone", "Helped" })
        {
            var runs = analysis.Runs.Where(r => r.IsMeasured && r.Key.Serializer == c).ToList();
            Assert.Equal(truth.Count(t => t.Case == c), runs.Count);
            var side = truth.Where(t => t.Case == c).Sum(t => t.SideMs);
            var other = runs.Sum(r => r.OtherThreadsCpu.GetValueOrDefault(ThreadRole.Other));
            var share = runs.Sum(r => r.OtherThreadsCpuMs!.Value) / runs.Sum(r => r.ProcessCpuMs!.Value);
            output.WriteLine($"{c}: side thread's clock {side:F1} ms, role other {other:F1} ms; other threads {share:P1} of the process's CPU");
            // The side burner is role "other" (beside it only the run marker's hand-overs, well under a millisecond a run).
            Assert.True(Math.Abs(other - side) <= Math.Max(0.1 * side, 2.0 * runs.Count) + ThreadClockBounds.Stolen(other, side, steal), $"{c}: role other {other:F1} ms against the side thread's clock {side:F1} (steal {steal:F0} ms)");
            var finding = analysis.Findings.Where(f => f.Kind == FindingKinds.OtherThreads && f.Serializer == c).ToList();
            if (c == "Helped")
            {
                // Half as much beside the worker: a third of the process's CPU.
                Assert.InRange(share, 0.25, 0.42);
                Assert.Contains("other", Assert.Single(finding).Message);
                Assert.True(share - aloneShare >= 0.15, $"Helped {share:P1} against Alone {aloneShare:P1}");
            }
            else
            {
                // Alone, the rest is the runtime's and the tracer's own (JIT tiering, GC, EventPipe): 2-7 % measured
                // here, more on a slower machine. The finding follows its threshold, and the side thread is what differs.
                var roles = string.Join(", ", runs.SelectMany(r => r.OtherThreadsCpu).GroupBy(x => x.Key).Select(x => $"{x.Key} {x.Sum(y => y.Value):F1} ms"));
                output.WriteLine($"Alone: {roles}");
                Assert.Equal(share > FindingThresholds.Default.MaxOtherThreadsShare, finding.Count == 1);
                aloneShare = share;
            }
        }
    }
}
