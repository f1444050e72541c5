using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Analyzer.Model;
using static EtwSerializerProfiler.Analyzer.Findings.FindingFormat;

namespace EtwSerializerProfiler.Analyzer.Findings.Detectors;

/// <summary>
/// A case whose runs cost the process more than its workers' CPU says: over <see cref="FindingThresholds.MaxOtherThreadsShare"/>
/// of the process's CPU inside the measured windows ran on other threads (kernel session: background GC, tiering's
/// JIT, the finalizer, the tracer's threads, the rest), named largest first. The CPU column leaves that work out.
/// </summary>
internal sealed class OtherThreadsDetector : IFindingDetector
{
    public string Kind => FindingKinds.OtherThreads;

    public IEnumerable<Finding> Detect(FindingContext context)
    {
        var t = context.Thresholds;
        foreach (var g in context.Cases)
        {
            // Unknown for any run (EventPipe alone, a cut session): no guess.
            if (g.Evidence.Any(r => r.OtherThreadsCpuMs is null)) continue;
            var other = g.Sum(r => r.OtherThreadsCpuMs!.Value);
            var process = g.Sum(r => r.ProcessCpuMs!.Value);
            if (process < t.MinSampledMs || other <= t.MaxOtherThreadsShare * process) continue;
            var share = other / process;
            var roles = new List<(ThreadRole Role, double Ms)>();
            foreach (var role in Enum.GetValues<ThreadRole>())
                if (g.Sum(r => r.OtherThreadsCpu.GetValueOrDefault(role)) is var ms and > 0) roles.Add((role, ms));
            var calls = Math.Max(1, g.Sum(r => (double)r.Calls));
            var split = new List<string>(roles.Count);
            var evidence = new List<KeyValuePair<string, double>>(roles.Count);
            foreach (var (role, ms) in Collections.LargestFirst.Of(roles, r => r.Ms))
            {
                split.Add(Invariant($"{WireNames.Of(role)} {Pct(ms / process)}"));
                evidence.Add(KeyValuePair.Create(char.ToLowerInvariant(role.ToString()[0]) + role.ToString()[1..] + "Ms", ms));
            }
            var where = string.Join(", ", split);
            yield return g.FindingOf(Kind, FindingSeverity.Info,
                Invariant($"{Pct(share)} of the process's CPU during the runs ran outside the workers ({Fmt.Ms(other / calls)} ms per call beside their {Fmt.Ms((process - other) / calls)}): {where}; the CPU column leaves it out")) with
            {
                Evidence =
                [
                    new("otherThreadsShare", share),
                    new("otherThreadsMs", other),
                    new("processMs", process),
                    // gcMs, jitMs, finalizerMs, tracerMs, otherMs.
                    .. evidence,
                ],
            };
        }
    }
}
