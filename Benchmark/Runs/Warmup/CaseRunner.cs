using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Runs.Warmup;

/// <summary>One (serializer, operation, data, N): its warm-up runs, then its measured runs, all numbered in order.</summary>
public readonly record struct CaseKey(string Serializer, string Operation, string Data, int Objects);

/// <summary>Every run of one case, in order, and how its warm-up went.</summary>
public sealed record CaseOutcome(IReadOnlyList<(RunContext Run, RunMeasurement Measurement)> Runs, WarmupResult Warmup);

/// <summary>
/// Runs cases the same way: warm-up runs (automatic until steady state or a bound, or a fixed count), sizing the
/// operations per run as they go, then the measured runs with that size. Warm-up runs are real runs (marked in the
/// trace and the results as warm-up), so a trace shows how the code got to steady state. One instance per benchmark
/// process: the JIT's history spans cases.
/// </summary>
public sealed class CaseRunner(WarmupPolicy policy, int measuredRuns)
{
    private readonly JitWatch _jit = new();
    private readonly HashSet<(string Serializer, string Operation)> _steadyCode = [];

    /// <param name="measure">Runs one run of the given context (its Operations calls inside the window).</param>
    // Its loops and helpers run once per run: compiled optimized at once, so they never tier up mid-warm-up.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public CaseOutcome Run(CaseKey key, Func<RunContext, RunMeasurement> measure, CancellationToken cancel)
    {
        // Sized up front: a list that grows mid-warm-up runs new code (its next size), which the JIT then compiles.
        var capacity = (policy.FixedRuns ?? policy.Rule.MaxRuns) + measuredRuns;
        var runs = new List<(RunContext, RunMeasurement)>(capacity);
        var samples = new List<WarmupSample>(capacity);
        var pilot = new OperationsPilot(policy.TargetRun, policy.FixedOperations);
        long origin = 0;
        var verdict = WarmupVerdict.Continue;
        [MethodImpl(MethodImplOptions.AggressiveOptimization)]
        WarmupHistory History() => new(samples, _jit.LastChangeTimestamp is { } t ? JitWatch.Ms(origin, t) : null, _steadyCode.Contains((key.Serializer, key.Operation)));

        while (policy.FixedRuns is { } fixedRuns ? runs.Count < fixedRuns : !verdict.Done)
        {
            cancel.ThrowIfCancellationRequested();
            var ctx = new RunContext(key.Serializer, key.Operation, key.Data, key.Objects, runs.Count, Warmup: true, pilot.Current);
            var m = Observe(measure(ctx));
            if (runs.Count == 0) origin = m.JitBefore.Timestamp;
            runs.Add((ctx, m));
            var perOp = m.DurationMs / ctx.Operations;
            samples.Add(new WarmupSample(JitWatch.Ms(origin, m.JitBefore.Timestamp), JitWatch.Ms(origin, m.JitAfter.Timestamp), ctx.Operations, perOp));
            pilot.Next(perOp);
            if (policy.IsAuto) verdict = policy.Rule.Evaluate(History());
        }
        var warmupCount = runs.Count;
        var (steady, reason) = policy.FixedRuns switch
        {
            null => (verdict.Steady, verdict.Reason),
            0 => (false, "none: --warmup 0 (the measured runs include the first calls)"),
            var n => Fixed(n.Value, policy.Rule.Evaluate(History(), bounded: false)),
        };
        if (steady) _steadyCode.Add((key.Serializer, key.Operation));

        for (var i = 0; i < measuredRuns; i++)
        {
            cancel.ThrowIfCancellationRequested();
            var ctx = new RunContext(key.Serializer, key.Operation, key.Data, key.Objects, runs.Count, Warmup: false, pilot.Current);
            runs.Add((ctx, Observe(measure(ctx))));
        }

        var warm = runs.Take(warmupCount).Select(r => r.Item2).ToList();
        var measured = runs.Skip(warmupCount).Select(r => r.Item2).ToList();
        return new CaseOutcome(runs, new WarmupResult
        {
            Serializer = key.Serializer, Operation = key.Operation, Data = key.Data, Objects = key.Objects,
            Policy = policy.IsAuto ? "auto" : "fixed",
            WarmupRuns = warmupCount, MeasuredRuns = measured.Count, Operations = pilot.Current,
            SteadyState = steady, Reason = reason,
            WarmupMs = warm.Count == 0 ? 0 : JitWatch.Ms(warm[0].JitBefore.Timestamp, warm[^1].JitAfter.Timestamp),
            WarmupCompiledMethods = SumCompiled(warm),
            MeasuredCompiledMethods = SumCompiled(measured),
        });
    }

    private static (bool, string) Fixed(int n, WarmupVerdict rule) =>
        rule.Steady ? (true, $"fixed: --warmup {n}; the steady-state rule held ({rule.Reason})")
                    : (false, $"fixed: --warmup {n}; {rule.Reason}");

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private RunMeasurement Observe(RunMeasurement m)
    {
        _jit.Observe(m.JitBefore.Counters, m.JitBefore.Timestamp);
        _jit.Observe(m.JitAfter.Counters, m.JitAfter.Timestamp);
        return m;
    }

    private static long? SumCompiled(List<RunMeasurement> runs) =>
        runs.Count == 0 || runs.Any(r => r.Jit is null) ? (runs.Count == 0 ? 0 : null) : runs.Sum(r => r.Jit!.Value.CompiledMethods);
}
