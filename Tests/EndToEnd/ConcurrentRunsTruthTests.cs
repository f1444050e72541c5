using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// --threads runs (issue 42): the benchmark names each run's crew (RunThread events) and reads every crew thread's CPU
/// clock around the window (results.json ThreadsCpuMs); the analyzer charges every crew thread inside the window, so
/// the CPU per call is held to the summed clocks, per case. Default recording (kernel session on Linux), small N.
/// Before: only the coordinating thread was charged (0.013 ms per operation against 0.827 ms of wall time).
/// </summary>
[EndToEnd]
public sealed class ConcurrentRunsTruthTests(ITestOutputHelper output)
{
    [Fact]
    public void Eight_threads_CPU_per_call_is_within_20_percent_of_the_summed_thread_clocks_per_case() =>
        Check(threads: 8, "DataContract,ServiceStack.Text", runs: 5);

    [Fact]
    public void Sixty_four_threads_CPU_per_call_is_within_20_percent_of_the_summed_thread_clocks_per_case() =>
        Check(threads: 64, "ServiceStack.Text", runs: 3);

    /// <summary>
    /// Measured: -0.5% to -3% on a machine at load 20-40; -10.0% (DataContract, 8 threads, 55.7 ms against 61.9) in a
    /// full CI run with a second build and recordings beside it; +15.4% (ServiceStack.Text, 64 threads, 3 runs: 91.0
    /// ms against 78.8) in a clean-clone CI run with a core kept busy. The trace misses what a switch-in costs before
    /// perf's IN record, or credits too much of it, more so with more switches on a busier machine; the output states
    /// this bias per trace.
    /// </summary>
    private const double Bound = 0.20;

    private void Check(int threads, string serializers, int runs)
    {
        var dir = Repo.NewTempDir("threads");
        try
        {
            // Default 20 ms runs. Each switch-in of a crew thread costs ~20 us of CPU before perf's IN record (the
            // switch and perf's own sched_switch stack): SwitchInCredit counts it from the pick. Without it, 20 ms runs
            // at --threads 64 read 5-19% below the clocks on 2 loaded cores (docs/analyzer.md, "Concurrent runs").
            var (exit, folder) = Recording.Record(Path.Combine(dir, "trace"), "--test", "deserialize", "--threads", threads.ToString(),
                "--n", "10", "--runs", runs.ToString(), "--warmup-max-ms", "1000", "--serializers", serializers);
            Assert.Equal(0, exit);
            using var input = TraceInput.Open(folder.Path);
            var analysis = new TraceAnalyzer(new AnalyzerOptions { CacheEtlx = false }).Analyze(input);
            Assert.Equal(CpuSourceKind.Perf, analysis.Trace.CpuSource);
            var measured = analysis.Runs.Where(r => r.IsMeasured).ToList();
            var steal = ThreadClockBounds.StealMs(folder.Path);
            Assert.Equal(serializers.Split(',').Length * runs, measured.Count);
            foreach (var run in measured)
            {
                // The crew, as the benchmark named it: T distinct threads, neither the worker nor the marker.
                Assert.Equal(threads, run.CrewThreadIds.Distinct().Count());
                Assert.DoesNotContain(run.WorkerThreadId, run.CrewThreadIds);
                Assert.DoesNotContain(run.MarkerThreadId, run.CrewThreadIds);
                Assert.Equal(run.Operations * threads, run.Calls);
                Assert.True(run.InProcess is { ThreadsCpuMs: > 0 } p && p.Threads == threads, $"run {run.Key}: no summed thread clocks in results.json");
            }
            foreach (var summary in CaseSummary.From(analysis.Runs))
            {
                var cases = measured.Where(r => r.Key.Serializer == summary.Serializer).ToList();
                var trace = cases.Sum(r => r.CpuMs);
                var clock = cases.Sum(r => r.InProcess!.ThreadsCpuMs!.Value);
                var perCall = cases.Average(r => r.InProcess!.ThreadsCpuMs!.Value / r.Calls);
                output.WriteLine($"{summary.Serializer}: CPU {summary.CpuMs:F4} ms per call (clocks {perCall:F4}), {trace:F1} ms in the runs against the clocks' {clock:F1} ms ({trace / clock - 1:P1}); Mean {summary.MeanDurationMs:F3} ms, off-CPU {summary.OffCpuMs:F3} ms per call; steal {steal:F0} ms");
                // Above the clocks, also by the steal the recording measured: the switches count it, the clocks do not
                // (+28.3%, 296.4 ms against 230.9, in a clean-clone CI run on a host taking a fifth of the CPU).
                var bias = summary.CpuMs / perCall - 1;
                Assert.True(Math.Abs(bias) <= Bound + ThreadClockBounds.Stolen(summary.CpuMs, perCall, steal / clock), $"{summary.Serializer}: {summary.CpuMs:F4} ms per call against the clocks' {perCall:F4} (steal {steal:F0} ms)");
                Assert.Equal(perCall, summary.InProcessCpuMs!.Value, 9);
                // The per-call division is the same for the CPU and the off-CPU time: the crew's on- and off-CPU time
                // fill T windows, so per call they add up to the window per operation (Mean ms) within the worker's own CPU.
                var wall = cases.Average(r => r.DurationMs / r.Operations);
                Assert.True(Math.Abs(summary.CpuMs + summary.OffCpuMs!.Value - wall) <= 0.05 * wall, $"{summary.Serializer}: CPU {summary.CpuMs} + off-CPU {summary.OffCpuMs} vs the window per operation {wall}");
                // The tags split the same CPU (per run, the charge's invariant) and most of it is the crew's calls.
                Assert.All(cases, r => Assert.Equal(r.CpuMs, r.Tags.Values.Sum(), 6));
            }
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }
}
