using EtwSerializerProfiler.Benchmark.Serializers;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Benchmark;

/// <summary>
/// The warm-up on the real benchmark, every serializer deserializing N=10,000 (issue 13): after the automatic
/// warm-up the measured runs pass the steady-state check, and with the warm-up off (--warmup 0) Newtonsoft.Json's
/// cold runs fail it.
/// <para>
/// The check has two parts. The JIT's own count, which load cannot fake: the methods compiled anywhere in the process
/// during the measured runs (95 steady cases in 12 launches: 0 to 8; Newtonsoft.Json's 45 cold runs: 339 to 368). And
/// the duration trend: the lower quartile of the time per operation in the last third of the measured runs over that
/// of the first third, above 1/4 (the last third not 4x faster: no tier-up left) and below 10 (see SlowdownBound). The lower quartile because noise only ever adds time and because steady
/// state itself is bimodal (Newtonsoft.Json at N=10,000: 2.5 ms right after a gen0 GC, 6 ms later in the GC cycle).
/// On an idle machine steady runs agree within a few percent; on this shared 2-core VM whole phases of a process run
/// 2-3x slower, so the 4x is set from that noise: 57 steady cases in six launches of this very command (load average
/// 9-19) gave 0.28 to 3.03. Cold runs gave 0.10 to 0.61 (15 launches, load average 2-20): the tier-up does not always
/// finish inside the last third (the JIT is still compiling there), so on this machine the trend alone cannot tell
/// every cold launch from a steady one, and the test asserts the cold trend's direction plus the failed check.
/// </para>
/// </summary>
[EndToEnd]
public sealed class SteadyStateRunTests
{
    private const double TrendBound = 4.0;
    /// <summary>
    /// Later runs slower than earlier ones is not what an unfinished warm-up leaves (tiering only ever makes code
    /// faster): on this VM it is a phase of stolen CPU, which the guest's thread CPU clock counts as the thread's.
    /// A steady Google.Protobuf case read 4.63 once (clean-clone CI with two other processes spinning); this bound
    /// only catches a pathology (a run-on-run slowdown, a leak).
    /// </summary>
    private const double SlowdownBound = 10.0;
    private const long MaxMethodsCompiledWhenSteady = 20;

    private static BenchmarkResults Run(params string[] args)
    {
        var json = Path.Combine(Repo.NewTempDir("steady"), "r.json");
        var result = ProcessRunner.Dotnet(Repo.BenchmarkDll, ["--test", "deserialize", "--n", "10000", .. args, "--json", json, "--quiet"]);
        Assert.True(result.ExitCode == 0, result.StdErr + result.StdOut);
        var results = BenchmarkResults.Load(json);
        Directory.Delete(Path.GetDirectoryName(json)!, recursive: true);
        return results;
    }

    /// <summary>
    /// Lower quartile of the worker's CPU time per operation (thread CPU clock) in the last third of the measured runs
    /// over the first third's. CPU time, not the Stopwatch: a run preempted on a busy machine takes longer but costs no
    /// more CPU (the Stopwatch's trend read 0.16 for a steady Google.Protobuf case once, at load 26 with two other
    /// processes spinning); the duration where a runtime has no thread CPU clock.
    /// </summary>
    private static double Trend(IEnumerable<RunResult> runs)
    {
        var measured = runs.Where(r => !r.Warmup).OrderBy(r => r.Run)
            .Select(r => r.CpuMs > 0 ? r.CpuMs / Math.Max(1, r.Operations) : r.DurationPerOperationMs).ToList();
        var third = measured.Count / 3;
        Assert.True(third >= 4, $"{measured.Count} measured runs are too few for a trend");
        return LowerQuartile(measured[^third..]) / LowerQuartile(measured[..third]);
    }

    /// <summary>The 25th percentile, interpolated between the two nearest values.</summary>
    private static double LowerQuartile(List<double> values)
    {
        var sorted = values.Order().ToList();
        var at = (sorted.Count - 1) * 0.25;
        var below = (int)at;
        return sorted[below] + (sorted[Math.Min(below + 1, sorted.Count - 1)] - sorted[below]) * (at - below);
    }

    /// <summary>The steady-state check on one case's measured runs: what fails, empty when it passes.</summary>
    private static List<string> SteadyStateCheck(WarmupResult w, IEnumerable<RunResult> runs)
    {
        var failures = new List<string>();
        if (w.MeasuredCompiledMethods > MaxMethodsCompiledWhenSteady)
            failures.Add($"the JIT compiled {w.MeasuredCompiledMethods} methods during the measured runs");
        var trend = Trend(runs);
        if (trend is <= 1 / TrendBound or >= SlowdownBound)
            failures.Add($"last third / first third = {trend:F2}");
        return failures;
    }

    [Fact]
    public void After_the_automatic_warm_up_steady_cases_pass_the_check_and_the_rest_say_why()
    {
        // A 4 s bound instead of the default 2 s: on this machine most serializers need 1-3 s to finish tier-1.
        var results = Run("--runs", "24", "--warmup-max-ms", "4000");
        var runnable = SerializerCatalog.All.Where(s => s.UnsupportedReason is null).Select(s => s.Name).Order().ToList();
        Assert.Equal(runnable, results.Warmups!.Select(w => w.Serializer).Order());
        var steady = new List<string>();
        foreach (var w in results.Warmups!)
        {
            Assert.True(w is { Policy: "auto", WarmupRuns: >= 1, MeasuredRuns: 24, Operations: >= 1 }, $"{w.Serializer}: {w}");
            if (!w.SteadyState)
            {
                // Never a silent failure: a case the rule did not call steady ran into a bound, and says so.
                Assert.StartsWith("bound: ", w.Reason, StringComparison.Ordinal);
                continue;
            }
            steady.Add(w.Serializer);
            Assert.StartsWith("steady: ", w.Reason, StringComparison.Ordinal);
            var failures = SteadyStateCheck(w, results.Runs.Where(r => r.Serializer == w.Serializer));
            Assert.True(failures.Count == 0, $"{w.Serializer}, called steady ({w.Reason}): {string.Join("; ", failures)}");
        }
        // At load 9-19, 8 to 10 of the 12 reached steady state; a rule that never does would pass the loop above.
        Assert.True(steady.Count >= runnable.Count / 3, $"only {steady.Count} of {runnable.Count} serializers reached steady state: {string.Join(", ", steady)}");
    }

    [Fact]
    public void Without_warm_up_Newtonsoft_Json_fails_the_check_with_the_cold_trend()
    {
        // One call per run: 45 runs cover tier-0 (the first third), the call-counting delay, 30 calls and the tier-ups.
        var results = Run("--warmup", "0", "--ops", "1", "--runs", "45", "--serializers", "Newtonsoft.Json");
        var w = Assert.Single(results.Warmups!);
        Assert.Equal((0, false), (w.WarmupRuns, w.SteadyState));
        Assert.StartsWith("none: --warmup 0", w.Reason, StringComparison.Ordinal);
        Assert.NotEmpty(SteadyStateCheck(w, results.Runs));
        Assert.True(w.MeasuredCompiledMethods > 5 * MaxMethodsCompiledWhenSteady, $"only {w.MeasuredCompiledMethods} methods compiled during the cold runs");
        // The direction of the cold trend: tier-0 code in the first third is slower than what the last third runs.
        var trend = Trend(results.Runs);
        Assert.True(trend < 1, $"cold runs: last third / first third = {trend:F2}, expected the tier-up to make the last third faster");
    }
}
