using EtwSerializerProfiler.Benchmark.Runs.Warmup;

namespace EtwSerializerProfiler.Tests.Benchmark;

/// <summary>
/// The warm-up's stopping rule on synthetic runs: times in ms, the JIT's last compile placed by hand. The default
/// tiering (100 ms call-counting delay, 30 calls) unless a test says otherwise, so the cases are the runtime's own.
/// </summary>
public sealed class SteadyStateRuleTests
{
    private static readonly SteadyStateRule Rule = new() { Tiering = TieringSettings.Default };

    /// <summary>Back-to-back runs of <paramref name="runMs"/> from t=0, <paramref name="ops"/> operations each, with these times per operation.</summary>
    private static List<WarmupSample> Runs(double runMs, int ops, params double[] perOp) =>
        [.. perOp.Select((p, i) => new WarmupSample(i * runMs, (i + 1) * runMs, ops, p))];

    /// <summary>Noise around a flat level: up, down, up, down...</summary>
    private static double[] Flat(int count, double level = 1.0) => [.. Enumerable.Range(0, count).Select(i => level * (i % 2 == 0 ? 1.02 : 0.98))];

    [Theory]
    [InlineData(new double[] { 5, 4, 3, 2, 1 }, 0)]      // still falling: no fluctuation (BenchmarkDotNet starts in "decreasing")
    [InlineData(new double[] { 1, 2, 3, 4, 5 }, 1)]      // rising: one change, from the assumed decrease
    [InlineData(new double[] { 1, 2, 1, 2, 1 }, 4)]      // every step changes direction
    [InlineData(new double[] { 2, 2, 2 }, 2)]            // a flat step counts, as in BenchmarkDotNet
    [InlineData(new double[] { 3 }, 0)]
    public void Fluctuations_count_direction_changes_like_BenchmarkDotNet(double[] values, int expected)
    {
        Assert.Equal(expected, SteadyStateRule.Fluctuations(Runs(10, 1, values), 0));
    }

    [Fact]
    public void A_quiet_JIT_and_fluctuating_durations_are_steady()
    {
        // Last compile at t=0; 20 ms runs of 100 operations: after the 100 ms delay and 50 ms of slack, steady.
        var runs = Runs(20, 100, Flat(16));
        var verdict = Rule.Evaluate(new WarmupHistory(runs, LastCompileMs: 0));
        Assert.True(verdict.Done);
        Assert.True(verdict.Steady, verdict.Reason);
        Assert.StartsWith("steady:", verdict.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Counts_that_stopped_rising_inside_the_call_counting_delay_are_not_steady()
    {
        // Nothing compiled for 80 ms and the durations are flat: exactly when tier-1 has not even started.
        var runs = Runs(20, 100, Flat(4));
        var verdict = Rule.Evaluate(new WarmupHistory(runs, LastCompileMs: 0));
        Assert.False(verdict.Done);
        Assert.Contains("JIT compiled 80 ms ago", Rule.Evaluate(new WarmupHistory(runs, 0), bounded: false).Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void A_method_called_once_per_operation_must_be_counted_past_the_threshold()
    {
        // One operation per 25 ms run: quiet for 500 ms, yet only the runs after the delay count, minus the slack.
        var runs = Runs(25, 1, Flat(20));
        var history = new WarmupHistory(runs, LastCompileMs: 0);
        Assert.False(Rule.Evaluate(history).Done);
        Assert.Contains("of 30 calls counted", Rule.Evaluate(history, bounded: false).Reason, StringComparison.Ordinal);
        // 100 ms delay + 30 calls of 25 ms + 50 ms slack: steady from 900 ms on, not before.
        Assert.False(Rule.Evaluate(new WarmupHistory(Runs(25, 1, Flat(35)), 0)).Done);
        Assert.True(Rule.Evaluate(new WarmupHistory(Runs(25, 1, Flat(36)), 0)).Steady);
    }

    [Fact]
    public void Code_steady_at_an_earlier_size_needs_no_new_call_count()
    {
        var runs = Runs(25, 1, Flat(10));
        Assert.False(Rule.Evaluate(new WarmupHistory(runs, LastCompileMs: 0)).Done);
        Assert.True(Rule.Evaluate(new WarmupHistory(runs, LastCompileMs: 0, CodeSteadyBefore: true)).Steady);
    }

    [Fact]
    public void A_compile_starts_the_count_over()
    {
        // Steady at t=320 with the last compile at 0, but a compile seen at t=300 puts the quiet back to 20 ms.
        var runs = Runs(20, 100, Flat(16));
        Assert.True(Rule.Evaluate(new WarmupHistory(runs, 0)).Steady);
        Assert.False(Rule.Evaluate(new WarmupHistory(runs, 300)).Done);
        Assert.Equal(16, Rule.StableFrom(new WarmupHistory(runs, 300)));
        Assert.Equal(5, Rule.StableFrom(new WarmupHistory(runs, 0)));
    }

    [Fact]
    public void Durations_still_falling_after_the_JIT_went_quiet_are_not_steady()
    {
        var falling = Enumerable.Range(0, 20).Select(i => 10.0 - i * 0.3).ToArray();
        var verdict = Rule.Evaluate(new WarmupHistory(Runs(20, 100, falling), 0), bounded: false);
        Assert.False(verdict.Steady);
        Assert.Contains("durations still trending", verdict.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void The_bounds_end_the_warm_up_without_steady_state_and_say_why()
    {
        var compiling = Runs(20, 100, Flat(100));
        var byRuns = Rule.Evaluate(new WarmupHistory(compiling, LastCompileMs: 1990));
        Assert.True(byRuns.Done);
        Assert.False(byRuns.Steady);
        Assert.StartsWith("bound: 100 warm-up runs reached; not steady: JIT compiled", byRuns.Reason, StringComparison.Ordinal);

        var byTime = (Rule with { MaxTime = TimeSpan.FromMilliseconds(500) }).Evaluate(new WarmupHistory(Runs(20, 100, Flat(25)), LastCompileMs: 490));
        Assert.True(byTime.Done);
        Assert.False(byTime.Steady);
        Assert.StartsWith("bound: 500 ms of warm-up reached", byTime.Reason, StringComparison.Ordinal);
        var shared = (Rule with { MaxTime = TimeSpan.FromMilliseconds(500), TimeBoundNote = " (250 ms per case, 2 warming in turn)" })
            .Evaluate(new WarmupHistory(Runs(20, 100, Flat(25)), LastCompileMs: 490));
        Assert.StartsWith("bound: 500 ms of warm-up reached (250 ms per case, 2 warming in turn); not steady", shared.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void A_slow_case_warms_past_the_time_bound_until_it_has_made_the_calls_tiering_needs()
    {
        // Issue 22: YamlDotNet N=1,000, one 150 ms call per run, cut off by the 2,000 ms bound after 12 calls, before
        // its code could be promoted twice (30 calls each). The bound now waits for 60 calls, up to 10x itself.
        var rule = Rule with { MaxTime = TimeSpan.FromMilliseconds(2000) };
        var twelve = rule.Evaluate(new WarmupHistory(Runs(150, 1, Flat(14)), LastCompileMs: 2000));
        Assert.False(twelve.Done, twelve.Reason);
        var sixty = rule.Evaluate(new WarmupHistory(Runs(150, 1, Flat(60)), LastCompileMs: 8990));
        Assert.True(sixty.Done && !sixty.Steady);
        Assert.StartsWith("bound: 2000 ms of warm-up reached (at 9000 ms, once the 60 calls tiering needs were made); not steady", sixty.Reason, StringComparison.Ordinal);
        // A call slower than the cap allows: ended at 10x the bound, saying how few calls it got.
        var capped = rule.Evaluate(new WarmupHistory(Runs(1000, 1, Flat(20)), LastCompileMs: 19990));
        Assert.True(capped.Done && !capped.Steady);
        Assert.StartsWith("bound: 20000 ms of warm-up reached with 20 of the 60 calls tiering needs", capped.Reason, StringComparison.Ordinal);
        // Code promoted at an earlier N, or no tiering, or --warmup-min-calls 0: the time bound alone.
        Assert.True(rule.Evaluate(new WarmupHistory(Runs(150, 1, Flat(14)), LastCompileMs: 2000, CodeSteadyBefore: true)).Done);
        Assert.True((rule with { MinCalls = 0 }).Evaluate(new WarmupHistory(Runs(150, 1, Flat(14)), LastCompileMs: 2000)).Done);
        Assert.Equal(0, (rule with { Tiering = TieringSettings.NotTiered }).EffectiveMinCalls);
    }

    [Fact]
    public void Without_a_JIT_counter_the_durations_decide_and_the_first_run_is_left_out()
    {
        var history = new WarmupHistory(Runs(20, 1, [50, .. Flat(4)]), LastCompileMs: null);
        Assert.Equal(1, Rule.StableFrom(history));
        var verdict = Rule.Evaluate(history);
        Assert.True(verdict.Steady, verdict.Reason);
        Assert.Contains("no JIT counter", verdict.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Without_tiering_there_is_no_delay_and_nothing_to_count()
    {
        var rule = Rule with { Tiering = TieringSettings.NotTiered };
        // Compiled at 0, 50 ms of slack later and four fluctuating runs: steady at 120 ms (6 runs).
        Assert.True(rule.Evaluate(new WarmupHistory(Runs(20, 1, Flat(6)), 0)).Steady);
        Assert.False(Rule.Evaluate(new WarmupHistory(Runs(20, 1, Flat(6)), 0)).Done);
    }

    [Fact]
    public void Tiering_settings_are_read_like_the_runtime_reads_them()
    {
        static TieringSettings Read(Dictionary<string, string> env, Dictionary<string, object>? props = null) =>
            TieringSettings.Read(n => env.GetValueOrDefault(n), n => props?.GetValueOrDefault(n));
        Assert.Equal(TieringSettings.Default, Read([]));
        Assert.Equal(TieringSettings.NotTiered, Read(new() { ["DOTNET_TieredCompilation"] = "0" }));
        Assert.Equal(TieringSettings.NotTiered, Read([], new() { ["System.Runtime.TieredCompilation"] = false }));
        Assert.Equal(TieringSettings.NotTiered, Read(new() { ["COMPlus_TieredCompilation"] = "0" }));
        // The runtime parses DOTNET_ numbers as hexadecimal: 1E is 30, 0x64 is 100.
        Assert.Equal(30, Read(new() { ["DOTNET_TC_CallCountThreshold"] = "1E" }).CallCountThreshold);
        Assert.Equal(TimeSpan.FromMilliseconds(100), Read(new() { ["DOTNET_TC_CallCountingDelayMs"] = "0x64" }).CallCountingDelay);
        Assert.Equal(TimeSpan.FromMilliseconds(50), Read([], new() { ["System.Runtime.TieredCompilation.CallCountingDelayMs"] = "50" }).CallCountingDelay);
        Assert.Equal(new TieringSettings(true, 1, TimeSpan.Zero), Read(new() { ["DOTNET_TC_AggressiveTiering"] = "1" }));
    }

    // The runtime's tiering events (TieringWatch) on hand-made histories. The case issue 22 saw, in numbers from its
    // trace (.NET 10, Reflection deserialize N=1,000, load average 25): the last compile at 912 ms, the JIT count flat
    // until 1,351 ms, the JIT-only rule steady at 1,141 ms with 47 calls "counted", perf 29% tier-0 in the measured runs:
    // the delay had been restarted by first calls of precompiled methods, which compile nothing.

    [Fact]
    public void The_JIT_count_alone_takes_a_flat_count_for_steady_while_the_runtime_still_delays_counting()
    {
        var runs = Runs(20, 23, Flat(12));
        Assert.True(Rule.Evaluate(new WarmupHistory(runs, LastCompileMs: 0)).Steady);
        var delayed = Rule.Evaluate(new WarmupHistory(runs, 0, Tiering: new TieringView(TieringPhase.Delay, 0, LastEventMs: -500)));
        Assert.False(delayed.Done);
        Assert.Contains("call-counting delay is on", Rule.Evaluate(new WarmupHistory(runs, 0, Tiering: new TieringView(TieringPhase.Delay, 0, -500)), bounded: false).Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Methods_queued_for_the_background_compiler_are_not_steady_and_the_bound_says_how_many()
    {
        var runs = Runs(25, 23, Flat(81)); // 2,025 ms
        var verdict = Rule.Evaluate(new WarmupHistory(runs, 0, Tiering: new TieringView(TieringPhase.Compiling, 131, 2150)));
        Assert.True(verdict.Done);
        Assert.False(verdict.Steady);
        Assert.Contains("bound: 2000 ms of warm-up reached; not steady: 131 method(s) queued for the runtime's background compiler", verdict.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Idle_tiering_counts_calls_from_its_last_event_not_from_the_last_compile_plus_the_delay()
    {
        // Compiled at 0; the delay really ended (Resume) at 400 ms. One call per 25 ms run: the JIT-only rule counts from
        // 100 ms and is steady at 900; the runtime counts from 400, so 30 calls and the 50 ms slack end at 1,200.
        var runs = Runs(25, 1, Flat(60));
        TieringView idle = new(TieringPhase.Idle, 0, LastEventMs: 400);
        Assert.True(Rule.Evaluate(new WarmupHistory(runs[..36], 0)).Steady);
        Assert.False(Rule.Evaluate(new WarmupHistory(runs[..47], 0, Tiering: idle)).Done);
        Assert.Contains("of 30 calls counted since", Rule.Evaluate(new WarmupHistory(runs[..47], 0, Tiering: idle), bounded: false).Reason, StringComparison.Ordinal);
        var steady = Rule.Evaluate(new WarmupHistory(runs[..48], 0, Tiering: idle));
        Assert.True(steady.Steady, steady.Reason);
        Assert.Contains("tiering idle for 800 ms", steady.Reason, StringComparison.Ordinal);
        // Durations are judged from the same point: the runs before 400 ms are not "stable".
        Assert.Equal(16, Rule.StableFrom(new WarmupHistory(runs, 0, Tiering: idle)));
        // Events that took 100 ms to reach the listener: a promotion queued by the 30th call may not have shown yet,
        // so 100 ms more of slack (1,300 ms, not 1,200).
        TieringView late = idle with { DeliveryMs = 100 };
        Assert.False(Rule.Evaluate(new WarmupHistory(runs[..51], 0, Tiering: late)).Done);
        Assert.True(Rule.Evaluate(new WarmupHistory(runs[..52], 0, Tiering: late)).Steady);
    }

    [Fact]
    public void A_compile_after_the_last_tiering_event_starts_the_count_over_without_the_delay()
    {
        // A dynamic method or stub compiles without tiering (no event): 30 calls again, but no 100 ms delay assumed.
        var runs = Runs(20, 10, Flat(30));
        TieringView idle = new(TieringPhase.Idle, 0, LastEventMs: 0);
        var history = new WarmupHistory(runs[..7], LastCompileMs: 60, Tiering: idle);
        Assert.False(Rule.Evaluate(history, bounded: false).Steady);
        // Counted from 60 ms: at 140 ms only the run ending at 80 ms is past the slack (10 calls); at 240 ms six runs are (60).
        var later = Rule.Evaluate(new WarmupHistory(runs[..12], 60, Tiering: idle));
        Assert.True(later.Steady, later.Reason);
        Assert.Contains("no JIT for 180 ms", later.Reason, StringComparison.Ordinal);
    }
}
