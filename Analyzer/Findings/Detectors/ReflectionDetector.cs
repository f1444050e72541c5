using EtwSerializerProfiler.Analyzer.Model;
using static EtwSerializerProfiler.Analyzer.Findings.FindingFormat;

namespace EtwSerializerProfiler.Analyzer.Findings.Detectors;

/// <summary>
/// Steady-state runs that spend their sampled time in reflection (FieldInfo/PropertyInfo Get/SetValue, Invoke, type
/// queries) and Activator.CreateInstance: a serializer running on reflection instead of generated code (seed 001:
/// .NET Core's slowdown explained by FieldInfo.SetValue and Activator). First calls are left to
/// <see cref="FirstCallDetector"/>: building metadata by reflection once is expected there.
/// </summary>
internal sealed class ReflectionDetector : IFindingDetector
{
    private const string ReflectionTag = "Reflection";
    private const string ActivatorTag = "Activator";

    public string Kind => FindingKinds.Reflection;

    public IEnumerable<Finding> Detect(FindingContext context)
    {
        var t = context.Thresholds;
        foreach (var g in context.Cases.Where(g => g.Operation != FirstCallDetector.Operation))
        {
            var sampled = g.Sum(r => r.NonGcSampledMs);
            if (sampled < t.MinSampledMs) continue;
            var reflection = g.Sum(r => r.TagMs(ReflectionTag));
            var activator = g.Sum(r => r.TagMs(ActivatorTag));
            var share = (reflection + activator) / sampled;
            if (share < t.MinReflectionShare) continue;
            var top = TopTag(g.Evidence);
            yield return g.FindingOf(Kind, FindingSeverity.Warning,
                Invariant($"{Pct(share)} of the on-CPU time outside GC is reflection ({Pct(reflection / sampled)}) and Activator ({Pct(activator / sampled)}), most under the tag {top.Tag} ({Pct(top.Ms / sampled)}): members are read, set and created through reflection instead of generated code")) with
            {
                Frame = top.Tag,
                Evidence =
                [
                    new("reflectionShare", reflection / sampled),
                    new("activatorShare", activator / sampled),
                    new("reflectionMsPerRun", reflection / g.Evidence.Count),
                    new("activatorMsPerRun", activator / g.Evidence.Count),
                    new("sampledMsPerRun", sampled / g.Evidence.Count),
                ],
            };
        }
    }

    /// <summary>
    /// The reflection or Activator tag with the most time over the runs, ties by name. A loop, not LINQ over (tag, ms)
    /// pairs: that ran as tier-0 JIT code in the ReadyToRun build.
    /// </summary>
    private static (string Tag, double Ms) TopTag(IEnumerable<RunAnalysis> runs)
    {
        var sums = new Collections.KeyedSums<string>(StringComparer.Ordinal);
        foreach (var run in runs)
            foreach (var (tag, ms) in run.Tags)
                if (TagSums.IsUnder(tag, ReflectionTag) || TagSums.IsUnder(tag, ActivatorTag)) sums.Add(tag, ms);
        string? top = null;
        foreach (var tag in sums.Keys)
            if (top is null || sums[tag] > sums[top] || (sums[tag] == sums[top] && string.CompareOrdinal(tag, top) < 0)) top = tag;
        return top is null ? throw new InvalidOperationException("no reflection or Activator tag in the runs") : (top, sums[top]);
    }
}
