using EtwSerializerProfiler.Analyzer.Model;
using static EtwSerializerProfiler.Analyzer.Findings.FindingFormat;

namespace EtwSerializerProfiler.Analyzer.Findings.Detectors;

/// <summary>
/// The trace's CPU column against the benchmark's thread CPU clock (<see cref="CpuClockAgreement"/>): beyond
/// <see cref="FindingThresholds.MaxCpuClockBias"/> and <see cref="FindingThresholds.MinCpuClockBiasMs"/> either
/// way, every CPU figure of the trace (columns, tags, hot methods, call trees) is off by about that much, and the
/// finding says so, which way and why for its source, or that the host's steal can explain it.
/// </summary>
internal sealed class CpuBiasDetector : IFindingDetector
{
    public string Kind => FindingKinds.CpuBias;

    public IEnumerable<Finding> Detect(FindingContext context)
    {
        var runs = context.Analysis.Runs;
        var t = context.Thresholds;
        if (CpuClockAgreement.Of(runs) is not { } a || Math.Abs(a.Bias) <= t.MaxCpuClockBias || Math.Abs(a.TraceMs - a.ClockMs) <= t.MinCpuClockBiasMs) yield break;
        var steal = a.ExplainedBySteal(context.Analysis.Trace.HostStealMs) ? context.Analysis.Trace.HostStealMs : null;
        var why = steal is { } stolen
            ? Invariant($"the hypervisor took {stolen:N0} ms of CPU from this machine (steal) while it recorded, enough to explain the excess: context switches count it, the thread clock does not")
            : context.Analysis.Trace.CpuBiasReason;
        yield return new Finding
        {
            Kind = Kind,
            Severity = FindingSeverity.Warning,
            Runs = [.. CpuClockAgreement.Compared(runs).Select(r => r.Key)],
            Message = Invariant($"the CPU columns read {Math.Abs(a.Bias) * 100:F1}% {(a.Bias < 0 ? "low" : "high")} against the benchmark's thread CPU clock over {a.Runs} measured runs ({a.TraceMs:F1} ms against {a.ClockMs:F1}; per run {Common.Fmt.SignedPercent(a.Min)} to {Common.Fmt.SignedPercent(a.Max)}): CPU, tag and hot-method figures are off by about that much; {why}"),
            Evidence = [new("bias", a.Bias), new("traceMs", a.TraceMs), new("clockMs", a.ClockMs), new("runs", a.Runs), new("medianPerRun", a.Median),
                .. steal is { } explained ? [new KeyValuePair<string, double>("stealMs", explained)] : Array.Empty<KeyValuePair<string, double>>()],
        };
    }
}
