using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Runs.Warmup;

/// <summary>One (serializer, operation, data, N): its warm-up runs, then its measured runs, all numbered in order.</summary>
public readonly record struct CaseKey(string Serializer, string Operation, string Data, int Objects);

/// <summary>A case to run: how to run one run of it, and who keeps each run as it completes.</summary>
/// <param name="Measure">Runs one run of the given context (its Operations calls inside the window).</param>
/// <param name="Completed">Called after every run, so a case that fails or is interrupted keeps the runs it measured.</param>
public sealed record CaseSpec(CaseKey Key, Func<RunContext, RunMeasurement> Measure, Action<RunContext, RunMeasurement>? Completed = null);

/// <summary>Every run of one case, in order, and how its warm-up went.</summary>
public sealed record CaseOutcome(IReadOnlyList<(RunContext Run, RunMeasurement Measurement)> Runs, WarmupResult Warmup);

/// <summary>
/// Runs cases the same way: warm-up runs (automatic until steady state or a bound, or a fixed count), sizing the
/// operations per run as they go, then the measured runs with that size. Warm-up runs are real runs (marked in the
/// trace and the results as warm-up), so a trace shows how the code got to steady state. One instance per benchmark
/// process: the JIT's history spans cases.
/// <para>
/// The cases of one serializer and N (serialize and deserialize) warm up together, one run of each in turn: the JIT's
/// quiet time is process-wide, so waiting for it once for both, while both tier up, costs about half of waiting twice.
/// A case that has reached steady state stops warming; when all have, each gets one more warm-up run right before
/// its measured runs (the others ran in between), then its measured runs. A fixed --warmup N keeps each case's N runs
/// right before its measured runs, the structure the benchmark always had.
/// </para>
/// </summary>
/// <param name="tiering">The runtime's tiering events (null: the JIT's count decides alone).</param>
public sealed class CaseRunner(WarmupPolicy policy, int measuredRuns, TieringWatch? tiering = null)
{
    private readonly JitWatch _jit = new();
    private readonly HashSet<(string Serializer, string Operation)> _steadyCode = [];

    public CaseOutcome Run(CaseKey key, Func<RunContext, RunMeasurement> measure, Action<RunContext, RunMeasurement>? completed, CancellationToken cancel) =>
        RunGroup([new CaseSpec(key, measure, completed)], cancel)[0];

    public IReadOnlyList<CaseOutcome> RunGroup(IReadOnlyList<CaseSpec> cases, CancellationToken cancel)
    {
        // The time bound is per case: cases warming in turn share theirs.
        var rule = cases.Count == 1 ? policy.Rule : policy.Rule with
        {
            MaxTime = TimeSpan.FromTicks(policy.Rule.MaxTime.Ticks * cases.Count),
            TimeBoundNote = $" ({policy.Rule.MaxTime.TotalMilliseconds:F0} ms per case, {cases.Count} warming in turn)",
        };
        var states = cases.Select(c => new CaseState(c, policy, measuredRuns)).ToList();
        if (policy.FixedRuns is { } fixedRuns)
        {
            foreach (var s in states)
            {
                while (s.Runs.Count < fixedRuns) WarmupRun(s, evaluate: null, cancel);
                s.Finish(fixedRuns == 0
                    ? (false, "none: --warmup 0 (the measured runs include the first calls)")
                    : Fixed(fixedRuns, rule.Evaluate(History(s), bounded: false)));
                MeasuredRuns(s, cancel);
            }
        }
        else
        {
            while (states.Any(s => !s.Verdict.Done))
                foreach (var s in states.Where(s => !s.Verdict.Done))
                    WarmupRun(s, rule, cancel);
            foreach (var s in states) s.Finish((s.Verdict.Steady, s.Verdict.Reason));
            foreach (var s in states)
            {
                if (states.Count > 1) WarmupRun(s, evaluate: null, cancel); // caches and branch history back to this case
                MeasuredRuns(s, cancel);
            }
        }
        foreach (var s in states.Where(s => s.Steady)) _steadyCode.Add((s.Spec.Key.Serializer, s.Spec.Key.Operation));
        return [.. states.Select(s => s.Outcome(policy))];
    }

    // The loops below run once per run: compiled optimized at once, so they never tier up mid-warm-up.
    [MethodImpl(HarnessCode.Optimized)]
    private void WarmupRun(CaseState s, SteadyStateRule? evaluate, CancellationToken cancel)
    {
        cancel.ThrowIfCancellationRequested();
        var key = s.Spec.Key;
        var ctx = new RunContext(key.Serializer, key.Operation, key.Data, key.Objects, s.Runs.Count, Warmup: true, s.Pilot.Current);
        var m = Observe(s.Spec.Measure(ctx));
        if (s.Runs.Count == 0) s.Origin = m.JitBefore.Timestamp;
        s.Runs.Add((ctx, m));
        s.Spec.Completed?.Invoke(ctx, m);
        var perOp = m.DurationMs / ctx.Operations;
        s.Samples.Add(new WarmupSample(JitWatch.Ms(s.Origin, m.JitBefore.Timestamp), JitWatch.Ms(s.Origin, m.JitAfter.Timestamp), ctx.Operations, perOp));
        s.Pilot.Next(perOp);
        if (evaluate is not null) s.Verdict = evaluate.Evaluate(History(s));
    }

    [MethodImpl(HarnessCode.Optimized)]
    private void MeasuredRuns(CaseState s, CancellationToken cancel)
    {
        var key = s.Spec.Key;
        for (var i = 0; i < measuredRuns; i++)
        {
            cancel.ThrowIfCancellationRequested();
            var ctx = new RunContext(key.Serializer, key.Operation, key.Data, key.Objects, s.Runs.Count, Warmup: false, s.Pilot.Current);
            var m = Observe(s.Spec.Measure(ctx));
            s.Runs.Add((ctx, m));
            s.Spec.Completed?.Invoke(ctx, m);
        }
    }

    [MethodImpl(HarnessCode.Optimized)]
    private WarmupHistory History(CaseState s) =>
        new(s.Samples, _jit.LastChangeTimestamp is { } t ? JitWatch.Ms(s.Origin, t) : null, _steadyCode.Contains((s.Spec.Key.Serializer, s.Spec.Key.Operation)), Tiering(s));

    [MethodImpl(HarnessCode.Optimized)]
    private TieringView? Tiering(CaseState s) =>
        tiering?.Read() is { } t ? new TieringView(t.Phase, t.Pending, JitWatch.Ms(s.Origin, t.LastEventTimestamp), t.MaxDeliveryMs) : null;

    private static (bool, string) Fixed(int n, WarmupVerdict rule) =>
        rule.Steady ? (true, $"fixed: --warmup {n}; the steady-state rule held ({rule.Reason})")
                    : (false, $"fixed: --warmup {n}; {rule.Reason}");

    [MethodImpl(HarnessCode.Optimized)]
    private RunMeasurement Observe(RunMeasurement m)
    {
        _jit.Observe(m.JitBefore.Counters, m.JitBefore.Timestamp);
        _jit.Observe(m.JitAfter.Counters, m.JitAfter.Timestamp);
        return m;
    }

    /// <summary>One case's runs so far, its pilot and its verdict.</summary>
    private sealed class CaseState(CaseSpec spec, WarmupPolicy policy, int measuredRuns)
    {
        public CaseSpec Spec { get; } = spec;
        // Sized up front: a list that grows mid-warm-up runs new code (its next size), which the JIT then compiles.
        public List<(RunContext Run, RunMeasurement Measurement)> Runs { get; } = new((policy.FixedRuns ?? policy.Rule.MaxRuns) + measuredRuns + 1);
        public List<WarmupSample> Samples { get; } = new((policy.FixedRuns ?? policy.Rule.MaxRuns) + 1);
        public OperationsPilot Pilot { get; } = new(policy.TargetRun, policy.FixedOperations);
        public long Origin { get; set; }
        public WarmupVerdict Verdict { get; set; } = WarmupVerdict.Continue;
        public bool Steady { get; private set; }
        private string _reason = "";
        private int _warmupRuns;

        /// <summary>The warm-up proper is over: its verdict stands (a later re-warm run does not change it).</summary>
        public void Finish((bool Steady, string Reason) verdict) => (Steady, _reason, _warmupRuns) = (verdict.Steady, verdict.Reason, Runs.Count);

        public CaseOutcome Outcome(WarmupPolicy p)
        {
            var warm = Runs.Where(r => r.Run.Warmup).Select(r => r.Measurement).ToList();
            var measured = Runs.Where(r => !r.Run.Warmup).Select(r => r.Measurement).ToList();
            var k = Spec.Key;
            return new CaseOutcome(Runs, new WarmupResult
            {
                Serializer = k.Serializer, Operation = k.Operation, Data = k.Data, Objects = k.Objects,
                Policy = p.IsAuto ? "auto" : "fixed",
                WarmupRuns = warm.Count, MeasuredRuns = measured.Count, Operations = Pilot.Current,
                SteadyState = Steady, Reason = _reason,
                WarmupMs = _warmupRuns == 0 ? 0 : JitWatch.Ms(warm[0].JitBefore.Timestamp, warm[_warmupRuns - 1].JitAfter.Timestamp),
                WarmupCompiledMethods = SumCompiled(warm),
                MeasuredCompiledMethods = SumCompiled(measured),
            });
        }

        private static long? SumCompiled(List<RunMeasurement> runs) =>
            runs.Count == 0 ? 0 : runs.Any(r => r.Jit is null) ? null : runs.Sum(r => r.Jit!.Value.CompiledMethods);
    }
}
