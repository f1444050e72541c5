using System.Diagnostics;
using EtwSerializerProfiler.Benchmark;
using EtwSerializerProfiler.Benchmark.Output;
using EtwSerializerProfiler.Benchmark.Runs;
using EtwSerializerProfiler.Benchmark.Runs.Warmup;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Tests.Benchmark;

/// <summary>The warm-up's other parts: options, the operations pilot, the case loop on a fake clock, the table's rank.</summary>
public sealed class WarmupPartsTests
{
    [Fact]
    public void Warmup_options_parse_and_default_to_automatic()
    {
        var d = BenchmarkOptions.Parse([]);
        Assert.True(d.Warmup.IsAuto);
        Assert.Null(d.Warmup.FixedOperations);
        Assert.Equal(WarmupPolicy.DefaultTargetRun, d.Warmup.TargetRun);
        Assert.Equal(BenchmarkOptions.DefaultRuns, d.Runs);

        var o = BenchmarkOptions.Parse(["--warmup", "0", "--ops", "7", "--run-ms", "50", "--warmup-max-runs", "9", "--warmup-max-ms", "300"]);
        Assert.Equal(0, o.Warmup.FixedRuns);
        Assert.Equal(7, o.Warmup.FixedOperations);
        Assert.Equal(TimeSpan.FromMilliseconds(50), o.Warmup.TargetRun);
        Assert.Equal(9, o.Warmup.Rule.MaxRuns);
        Assert.Equal(TimeSpan.FromMilliseconds(300), o.Warmup.Rule.MaxTime);
        Assert.True(BenchmarkOptions.Parse(["--warmup", "AUTO", "--ops=auto"]).Warmup is { IsAuto: true, FixedOperations: null });
    }

    [Theory]
    [InlineData(new[] { "--warmup", "x" }, "--warmup expects auto or a whole number")]
    [InlineData(new[] { "--warmup", "-1" }, "--warmup expects auto or a whole number")]
    [InlineData(new[] { "--ops", "0" }, "--ops expects auto or a whole number from 1")]
    [InlineData(new[] { "--run-ms", "0" }, "--run-ms")]
    [InlineData(new[] { "--warmup-max-runs", "0" }, "--warmup-max-runs")]
    public void Bad_warmup_options_are_one_line_errors(string[] args, string expected)
    {
        var ex = Assert.Throws<UsageException>(() => BenchmarkOptions.Parse(args));
        Assert.Contains(expected, ex.Message, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', ex.Message);
    }

    [Fact]
    public void The_pilot_sizes_runs_to_the_target_and_ignores_one_slow_run()
    {
        var pilot = new OperationsPilot(TimeSpan.FromMilliseconds(20), fixedOperations: null);
        Assert.Equal(1, pilot.Current);
        Assert.Equal(1, pilot.Next(30));     // a cold first call: one per run
        Assert.Equal(1, pilot.Next(0.5));    // of two, the slower decides: still one
        Assert.Equal(40, pilot.Next(0.5));   // median of three is 0.5 ms: 40 operations make 20 ms
        Assert.Equal(40, pilot.Next(5));     // one slow run (a compile, a busy machine) does not move it
        Assert.Equal(40, pilot.Next(0.6));   // within half of the target: kept, no chasing of noise
        pilot.Next(1.0);
        Assert.Equal(20, pilot.Next(1.0));   // a sustained change does
        var fixedOps = new OperationsPilot(TimeSpan.FromMilliseconds(20), fixedOperations: 3);
        Assert.Equal(3, fixedOps.Next(0.001));
    }

    /// <summary>A fake run: every run lasts 10 ms per operation on a fake clock; the JIT compiles during the first <paramref name="compilingRuns"/>.</summary>
    private sealed class FakeRuns(int compilingRuns, double perOpMs = 10)
    {
        private long _clock = Stopwatch.Frequency; // 1 s
        private long _compiled = 1000;
        public List<RunContext> Seen { get; } = [];

        public RunMeasurement Measure(RunContext ctx)
        {
            Seen.Add(ctx);
            var before = new JitReading(new JitSnapshot(_compiled, TimeSpan.Zero), _clock);
            var ms = perOpMs * ctx.Operations * (ctx.Run % 2 == 0 ? 1.01 : 0.99);
            _clock += (long)(ms * Stopwatch.Frequency / 1000);
            if (Seen.Count <= compilingRuns) _compiled += 5;
            var after = new JitReading(new JitSnapshot(_compiled, TimeSpan.FromMilliseconds(Seen.Count <= compilingRuns ? 2 : 0)), _clock);
            return new RunMeasurement(ms, ms, GcCounts.Zero, 0, 0, ms, 1, 2, before, after);
        }
    }

    [Fact]
    public void The_case_loop_warms_up_until_steady_then_measures_with_the_pilots_size()
    {
        var fake = new FakeRuns(compilingRuns: 10);
        var policy = WarmupPolicy.Auto with { Rule = new SteadyStateRule { Tiering = TieringSettings.Default } };
        var outcome = new CaseRunner(policy, measuredRuns: 4).Run(new CaseKey("S", "deserialize", "BookShelf", 100), fake.Measure, null, CancellationToken.None);
        var w = outcome.Warmup;
        Assert.True(w.SteadyState, w.Reason);
        Assert.Equal("auto", w.Policy);
        Assert.Equal(4, w.MeasuredRuns);
        Assert.Equal(outcome.Runs.Count, w.WarmupRuns + w.MeasuredRuns);
        Assert.True(w.WarmupRuns > 10, $"stopped after {w.WarmupRuns} runs while the JIT compiled in the first 10");
        Assert.Equal(50, w.WarmupCompiledMethods);
        Assert.Equal(0, w.MeasuredCompiledMethods);
        // Runs are numbered in order; the warm-up ones are flagged; the measured ones all have the pilot's size (2 x 10 ms).
        Assert.Equal(Enumerable.Range(0, outcome.Runs.Count), outcome.Runs.Select(r => r.Run.Run));
        Assert.All(outcome.Runs.Take(w.WarmupRuns), r => Assert.True(r.Run.Warmup));
        Assert.All(outcome.Runs.Skip(w.WarmupRuns), r => Assert.False(r.Run.Warmup));
        Assert.All(outcome.Runs.Skip(w.WarmupRuns), r => Assert.Equal(2, r.Run.Operations));
        Assert.Equal(2, w.Operations);
        Assert.Equal(1, outcome.Runs[0].Run.Operations);
    }

    [Fact]
    public void A_fixed_warm_up_runs_exactly_that_many_and_says_whether_the_rule_held()
    {
        var policy = WarmupPolicy.Auto with { FixedRuns = 3, Rule = new SteadyStateRule { Tiering = TieringSettings.Default } };
        var fixedRun = new CaseRunner(policy, 2).Run(new CaseKey("S", "serialize", "BookShelf", 1), new FakeRuns(compilingRuns: 1).Measure, null, CancellationToken.None);
        Assert.Equal((3, 2, "fixed", false), (fixedRun.Warmup.WarmupRuns, fixedRun.Warmup.MeasuredRuns, fixedRun.Warmup.Policy, fixedRun.Warmup.SteadyState));
        Assert.StartsWith("fixed: --warmup 3; not steady:", fixedRun.Warmup.Reason, StringComparison.Ordinal);

        var cold = new CaseRunner(WarmupPolicy.Auto with { FixedRuns = 0 }, 3).Run(new CaseKey("S", "serialize", "BookShelf", 1), new FakeRuns(0, perOpMs: 0.01).Measure, null, CancellationToken.None);
        Assert.Equal(3, cold.Runs.Count);
        Assert.All(cold.Runs, r => Assert.Equal((false, 1), (r.Run.Warmup, r.Run.Operations))); // no pilot without warm-up: one call per run
        Assert.False(cold.Warmup.SteadyState);
        Assert.StartsWith("none: --warmup 0", cold.Warmup.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Cases_of_one_group_warm_up_in_turn_then_each_gets_one_more_warm_up_run_before_its_measured_runs()
    {
        var fake = new FakeRuns(compilingRuns: 10);
        var order = new List<(string Op, bool Warmup)>();
        CaseSpec Spec(string op) => new(new CaseKey("S", op, "BookShelf", 100), fake.Measure, (ctx, _) => order.Add((ctx.Operation, ctx.Warmup)));
        var policy = WarmupPolicy.Auto with { Rule = new SteadyStateRule { Tiering = TieringSettings.Default } };
        var outcomes = new CaseRunner(policy, measuredRuns: 3).RunGroup([Spec("serialize"), Spec("deserialize")], CancellationToken.None);

        Assert.All(outcomes, o => Assert.True(o.Warmup.SteadyState, o.Warmup.Reason));
        // The warm-up alternates; then serialize's extra warm-up run and measured runs, then deserialize's.
        Assert.Equal([("serialize", true), ("deserialize", true), ("serialize", true), ("deserialize", true)], order.Take(4));
        Assert.Equal([("serialize", true), ("serialize", false), ("serialize", false), ("serialize", false),
                      ("deserialize", true), ("deserialize", false), ("deserialize", false), ("deserialize", false)], order.TakeLast(8));
        Assert.All(outcomes, o => Assert.Equal(o.Runs.Count, o.Warmup.WarmupRuns + 3));

        // A fixed warm-up keeps each case's runs together: N warm-up runs right before its measured runs.
        order.Clear();
        new CaseRunner(policy with { FixedRuns = 1 }, measuredRuns: 2).RunGroup([Spec("serialize"), Spec("deserialize")], CancellationToken.None);
        Assert.Equal([("serialize", true), ("serialize", false), ("serialize", false), ("deserialize", true), ("deserialize", false), ("deserialize", false)], order);
    }

    [Fact]
    public void Every_run_is_handed_over_as_it_completes_so_a_failing_case_keeps_what_it_measured()
    {
        var fake = new FakeRuns(compilingRuns: 100);
        var kept = new List<RunContext>();
        RunMeasurement FailingAtRun5(RunContext ctx) => ctx.Run == 5 ? throw new InvalidOperationException("serializer failed") : fake.Measure(ctx);
        var runner = new CaseRunner(WarmupPolicy.Auto with { Rule = new SteadyStateRule { Tiering = TieringSettings.Default } }, 3);
        Assert.Throws<InvalidOperationException>(() => runner.Run(new CaseKey("S", "deserialize", "BookShelf", 10), FailingAtRun5, (ctx, _) => kept.Add(ctx), CancellationToken.None));
        Assert.Equal([0, 1, 2, 3, 4], kept.Select(c => c.Run));
    }

    private static CaseStats Case(string name, params double[] perOpMs) => CaseStats.Of(
        [.. perOpMs.Select((ms, i) => new RunResult
        {
            Serializer = name, Operation = "deserialize", Data = "BookShelf", Objects = 100, Run = i, Operations = 10,
            DurationMs = ms * 10, GcCount = GcCounts.Zero, GcPauseMs = 0, AllocatedBytes = 0,
        })]);

    [Fact]
    public void Rows_whose_ranges_overlap_a_neighbour_are_marked_as_not_rankable()
    {
        var ranked = Ranking.Rank([Case("A", 1.0, 1.1), Case("B", 2.0, 2.2), Case("C", 2.1, 2.5), Case("D", 5.0)]);
        Assert.Equal(["1", "2~", "3~", "4?"], ranked.Select(r => r.Rank));
        var c = Case("A", 1.0, 2.0, 3.0);
        Assert.Equal(2.0, c.MeanMs, 6);
        Assert.Equal(0.5, c.Cv, 6);
        Assert.Equal(10, c.Operations);
    }
}
