using System.Runtime.CompilerServices;
using System.Globalization;

namespace EtwSerializerProfiler.Benchmark.Runs.Warmup;

/// <summary>
/// When to stop warming up: BenchmarkDotNet's warm-up rule (AutoWarmupStoppingCriteria: keep going while the
/// durations move in one direction, stop once they have changed direction a few times, within a minimum and maximum
/// number of iterations), applied only to the runs after the JIT went quiet, because here a run is milliseconds, not
/// BenchmarkDotNet's 500 ms, and tiered compilation can take hundreds of them to finish.
/// <para>
/// The JIT is quiet when, after its last compile anywhere in the process (JitInfo), the call-counting delay has passed,
/// then at least the call-count threshold of operations has completed (so a method called once per operation has been
/// counted past the threshold and queued for its next tier) and then <see cref="CompileSlack"/> more (so that
/// background compile would have shown up). A compile resets all of it; instrumented tier, then tier-1 are each a
/// compile, so the rule waits through both promotions. Stopping when the counts merely stop rising is not enough:
/// during the call-counting delay nothing compiles, yet tier-1 has not even started.
/// </para>
/// <para>
/// The durations are settled when the runs that started after the delay (the "stable" runs) number at least
/// <see cref="MinStableRuns"/> and change direction at least <see cref="MinFluctuations"/> times. Bounded by
/// <see cref="MaxRuns"/> and <see cref="MaxTime"/>: reaching a bound ends the warm-up without steady state, and says so.
/// </para>
/// </summary>
public sealed record SteadyStateRule
{
    /// <summary>BenchmarkDotNet stops after 50 warm-up iterations of ~500 ms; ours are ~20 ms, so more of them, and a time bound.</summary>
    public int MaxRuns { get; init; } = 100;
    public TimeSpan MaxTime { get; init; } = TimeSpan.FromSeconds(2);
    /// <summary>
    /// BenchmarkDotNet: at least 6 iterations and 4 direction changes. Here, on the stable runs only (the JIT condition
    /// has done the long wait), 4 runs and 2 changes: enough to tell a sequence still falling or rising from a flat one,
    /// and every run more costs each of the quick default's 48 cases 20 ms.
    /// </summary>
    public int MinStableRuns { get; init; } = 4;
    public int MinFluctuations { get; init; } = 2;
    /// <summary>
    /// Time for a tier-up queued by the last counted call to compile and show in the JIT's count (one method compiles
    /// in milliseconds; a later one still shows as measuredCompiledMethods).
    /// </summary>
    public TimeSpan CompileSlack { get; init; } = TimeSpan.FromMilliseconds(50);
    private const double MaxDeliverySlackMs = 1000;
    public TieringSettings Tiering { get; init; } = TieringSettings.Current;
    /// <summary>
    /// The warm-up budget in calls (--warmup-min-calls; default: the call-count threshold twice, for the instrumented
    /// tier and then tier-1): the time bound does not end a warm-up before the case has made that many calls, so a slow
    /// case (one call per run, 150 ms a call) is not cut off after 12 calls, before tiering could even promote its code
    /// (issue 22). <see cref="CallBudgetCap"/> times the time bound still ends it. 0 when nothing tiers.
    /// </summary>
    public int? MinCalls { [MethodImpl(HarnessCode.Optimized)] get; init; }
    public const int CallBudgetCap = 10;
    public int EffectiveMinCalls { [MethodImpl(HarnessCode.Optimized)] get => MinCalls ?? (Tiering.Tiered ? 2 * Tiering.CallCountThreshold : 0); }
    /// <summary>Said after the time bound when it is not simply --warmup-max-ms (cases warming in turn share theirs).</summary>
    public string? TimeBoundNote { get; init; }

    /// <summary>
    /// The verdict after the latest run. Called after every warm-up run, so it allocates nothing and formats nothing
    /// until it stops: code that runs once per run and keeps allocating or growing collections would itself keep the
    /// JIT busy (a new List size is new code to compile) and hold the warm-up open. For the same reason the rule's
    /// per-run methods are compiled fully optimized at once (AggressiveOptimization), as BenchmarkDotNet does for its
    /// engine: they never tier up, and every branch is compiled on the first call, not when it is first taken.
    /// </summary>
    [MethodImpl(HarnessCode.Optimized)]
    public WarmupVerdict Evaluate(WarmupHistory history, bool bounded = true)
    {
        var runs = history.Runs;
        if (runs.Count == 0) return WarmupVerdict.Continue;
        var jit = JitState(history);
        var stableFrom = StableFrom(history);
        var stableCount = runs.Count - stableFrom;
        var fluctuations = Fluctuations(runs, stableFrom);
        var durationsSettled = stableCount >= MinStableRuns && fluctuations >= MinFluctuations;
        if (jit.Settled && durationsSettled)
            return new(true, true, $"steady: {JitText(history, jit)}; durations changed direction {fluctuations} times in the last {stableCount} runs");
        if (!bounded) return new(false, false, Missing(history, jit, stableCount, fluctuations));
        if (runs.Count >= MaxRuns) return new(true, false, $"bound: {MaxRuns} warm-up runs reached; {Missing(history, jit, stableCount, fluctuations)}");
        if (history.NowMs < MaxTime.TotalMilliseconds) return WarmupVerdict.Continue;
        var calls = Calls(runs);
        var minCalls = history.CodeSteadyBefore ? 0 : EffectiveMinCalls;
        if (calls >= minCalls)
        {
            // Past the bound only for the call budget: say how long it took, or the reason reads as 2,000 ms for 15 s.
            var extended = minCalls > 0 && history.NowMs > MaxTime.TotalMilliseconds * 1.5 ? $" (at {Ms(history.NowMs)} ms, once the {minCalls} calls tiering needs were made)" : "";
            return new(true, false, $"bound: {Ms(MaxTime.TotalMilliseconds)} ms of warm-up reached{TimeBoundNote}{extended}; {Missing(history, jit, stableCount, fluctuations)}");
        }
        if (history.NowMs >= MaxTime.TotalMilliseconds * CallBudgetCap)
            return new(true, false, $"bound: {Ms(MaxTime.TotalMilliseconds * CallBudgetCap)} ms of warm-up reached{TimeBoundNote} with {calls} of the {minCalls} calls tiering needs (its code cannot have been promoted); {Missing(history, jit, stableCount, fluctuations)}");
        return WarmupVerdict.Continue;
    }

    /// <summary>
    /// Index of the first "stable" run: the first that started once the code was what the runtime will keep (unless it
    /// compiles again, which starts the count over). Without a JIT counter, every run but the first (which holds the
    /// compiles nobody could count).
    /// </summary>
    [MethodImpl(HarnessCode.Optimized)]
    public int StableFrom(WarmupHistory history)
    {
        var runs = history.Runs;
        if (CountedFrom(history) is not { } from) return Math.Min(1, runs.Count);
        var i = runs.Count;
        while (i > 0 && runs[i - 1].StartMs >= from) i--;
        return i;
    }

    /// <summary>
    /// From when the runtime counts calls toward the next tier, on the samples' clock; null without a JIT counter. With
    /// the runtime's tiering events: its last event (the delay ended, or the background compiler reported), or a later
    /// compile. Without them, the last compile plus the call-counting delay: an estimate, since the delay also restarts
    /// on first calls that compile nothing (precompiled code) and ends only when the runtime's worker thread gets to
    /// run (issue 22: 440 ms after the last compile on a busy machine, not 100).
    /// </summary>
    [MethodImpl(HarnessCode.Optimized)]
    private double? CountedFrom(WarmupHistory history)
    {
        if (history.LastCompileMs is not { } last) return null;
        if (history.Tiering is { } t) return Math.Max(t.LastEventMs, last);
        return last + Tiering.CallCountingDelay.TotalMilliseconds;
    }

    private readonly record struct Jit(bool Settled, double QuietMs, long Counted, long Needed);

    [MethodImpl(HarnessCode.Optimized)]
    private Jit JitState(WarmupHistory history)
    {
        if (CountedFrom(history) is not { } countedFrom) return new(true, 0, 0, 0);
        var runs = history.Runs;
        var now = history.NowMs;
        // Operations the runtime counted that ended long enough ago for a tier-up they triggered to have compiled and
        // shown in the count (or, with tiering events, to have woken the background compiler and reached the listener:
        // 20-112 ms measured on a busy machine, so the slowest delivery seen is added, up to a second) by now.
        var slack = CompileSlack.TotalMilliseconds + (history.Tiering is { } v ? Math.Min(v.DeliveryMs, MaxDeliverySlackMs) : 0);
        long counted = 0;
        for (var i = runs.Count - 1; i >= 0 && runs[i].StartMs >= countedFrom; i--)
            if (runs[i].EndMs <= now - slack) counted += runs[i].Operations;
        long needed = history.CodeSteadyBefore ? 0 : Tiering.CallCountThreshold;
        var quietMs = now - countedFrom;
        var idle = history.Tiering is not { } t || t.Phase == TieringPhase.Idle;
        return new(idle && quietMs >= slack && counted >= needed, now - (history.LastCompileMs ?? now), counted, needed);
    }

    private static string JitText(WarmupHistory history, Jit jit)
    {
        if (history.LastCompileMs is null) return "no JIT counter on this runtime";
        var earlier = history.CodeSteadyBefore ? "; code steady at an earlier N" : "";
        if (history.Tiering is { } t)
            return jit.Settled ? $"tiering idle for {Ms(history.NowMs - t.LastEventMs)} ms, no JIT for {Ms(jit.QuietMs)} ms ({jit.Counted} calls counted since{earlier})"
                : t.Phase == TieringPhase.Delay ? $"the runtime's call-counting delay is on (methods still run for the first time, so no call counts yet; JIT compiled {Ms(jit.QuietMs)} ms ago)"
                : t.Phase == TieringPhase.Compiling ? $"{t.Pending} method(s) queued for the runtime's background compiler (JIT compiled {Ms(jit.QuietMs)} ms ago)"
                : $"tiering idle for {Ms(history.NowMs - t.LastEventMs)} ms, JIT compiled {Ms(jit.QuietMs)} ms ago ({jit.Counted} of {jit.Needed} calls counted since)";
        return jit.Settled ? $"no JIT for {Ms(jit.QuietMs)} ms ({jit.Counted} calls counted after the call-counting delay{earlier})"
            : $"JIT compiled {Ms(jit.QuietMs)} ms ago ({jit.Counted} of {jit.Needed} calls counted since)";
    }

    private string Missing(WarmupHistory history, Jit jit, int stableRuns, int fluctuations) =>
        !jit.Settled ? $"not steady: {JitText(history, jit)}"
        : stableRuns < MinStableRuns ? $"not steady: {stableRuns} of {MinStableRuns} runs since the JIT went quiet"
        : $"not steady: durations still trending ({fluctuations} of {MinFluctuations} direction changes in {stableRuns} runs)";

    [MethodImpl(HarnessCode.Optimized)]
    private static long Calls(IReadOnlyList<WarmupSample> runs)
    {
        long calls = 0;
        for (var i = 0; i < runs.Count; i++) calls += runs[i].Operations;
        return calls;
    }

    /// <summary>Direction changes of the time per operation from run <paramref name="from"/> on (see the other overload).</summary>
    [MethodImpl(HarnessCode.Optimized)]
    public static int Fluctuations(IReadOnlyList<WarmupSample> runs, int from)
    {
        var direction = -1;
        var count = 0;
        for (var i = from + 1; i < runs.Count; i++)
        {
            var delta = runs[i].PerOperationMs - runs[i - 1].PerOperationMs;
            var next = delta > 0 ? 1 : delta < 0 ? -1 : 0; // not Math.Sign: a CoreLib call that would tier up mid-warm-up
            if (next != direction || next == 0) { direction = next; count++; }
        }
        return count;
    }

    /// <summary>
    /// BenchmarkDotNet's count: the number of times the sequence changes direction, starting from "decreasing", so a
    /// steadily falling sequence (code still warming) counts 0 and a flat or noisy one counts nearly every step.
    /// </summary>
    public static int Fluctuations(IEnumerable<double> values)
    {
        var direction = -1;
        var count = 0;
        double? previous = null;
        foreach (var v in values)
        {
            if (previous is { } p)
            {
                var next = Math.Sign(v - p);
                if (next != direction || next == 0) { direction = next; count++; }
            }
            previous = v;
        }
        return count;
    }

    private static string Ms(double ms) => ms.ToString("F0", CultureInfo.InvariantCulture);
}
