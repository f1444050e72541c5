using EtwSerializerProfiler.Analyzer.Model;
using static EtwSerializerProfiler.Analyzer.Findings.FindingFormat;

namespace EtwSerializerProfiler.Analyzer.Findings.Detectors;

/// <summary>
/// A slow first use (--test firstcall) and how much of it was JIT (seed 000: XmlSerializer's 70 ms, Jil's startup
/// until NGen). JIT-dominated first calls are what ReadyToRun removes; the rest is type loading, reflection and
/// run-time code generation (XmlSerializer, emit-based serializers), which precompiling the app does not remove.
/// A first call is slow when it is, by the wall clock and by the worker's thread CPU clock.
/// </summary>
internal sealed class FirstCallDetector : IFindingDetector
{
    public const string Operation = "firstcall";

    public string Kind => FindingKinds.FirstCall;

    public IEnumerable<Finding> Detect(FindingContext context)
    {
        var t = context.Thresholds;
        foreach (var g in context.Cases.Where(g => g.Operation == Operation))
        {
            var duration = g.Mean(r => r.DurationMs);
            // Slow by the worker's own CPU clock where the benchmark read it: with both cores busy, Google.Protobuf's 7 ms
            // first call took 59.8 ms by the wall clock, waiting for a core, not working.
            var cpu = g.Evidence.All(r => CpuClockAgreement.ThreadClockMs(r) is not null) ? g.Mean(r => CpuClockAgreement.ThreadClockMs(r)!.Value) : duration;
            if (duration < t.MinFirstCallMs || cpu < t.MinFirstCallMs) continue;
            var jit = g.Mean(r => r.Counters.JitMs);
            var share = duration <= 0 ? 0 : jit / duration;
            var methods = g.Mean(r => r.Counters.JitMethods);
            var dominated = share >= t.FirstCallJitDominantShare;
            yield return g.FindingOf(Kind, FindingSeverity.Warning,
                dominated
                    ? Invariant($"first call took {duration:F1} ms, {jit:F1} ms ({Pct(share)}) of it JIT-compiling {methods:N0} methods: precompile (ReadyToRun) or warm up off the critical path")
                    : Invariant($"first call took {duration:F1} ms but JIT only {jit:F1} ms ({Pct(share)}, {methods:N0} methods): the rest is type loading, reflection and run-time code generation")) with
            {
                Evidence =
                [
                    new("firstCallMs", duration),
                    new("jitMs", jit),
                    new("jitShare", share),
                    new("jitMethods", methods),
                ],
            };
        }
    }
}
