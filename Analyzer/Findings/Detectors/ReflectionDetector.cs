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
            var top = g.Evidence.SelectMany(r => r.Tags)
                .Where(p => TagSums.IsUnder(p.Key, ReflectionTag) || TagSums.IsUnder(p.Key, ActivatorTag))
                .GroupBy(p => p.Key, StringComparer.Ordinal)
                .Select(p => (Tag: p.Key, Ms: p.Sum(x => x.Value)))
                .OrderByDescending(p => p.Ms).ThenBy(p => p.Tag, StringComparer.Ordinal)
                .First();
            yield return g.FindingOf(Kind, FindingSeverity.Warning,
                Invariant($"{Pct(share)} of sampled time is reflection ({Pct(reflection / sampled)}) and Activator ({Pct(activator / sampled)}), most under the tag {top.Tag} ({Pct(top.Ms / sampled)}): members are read, set and created through reflection instead of generated code")) with
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
}
