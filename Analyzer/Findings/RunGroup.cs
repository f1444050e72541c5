using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Findings;

/// <summary>
/// The measured runs of one serializer, operation and object count: what a finding is about. Warm-up runs are left
/// out (one-time costs belong to --test firstcall); outliers only when a group has nothing else. A case with only
/// warm-up runs (a recording cut during its warm-up) has no group: its findings would describe the warm-up.
/// </summary>
internal sealed record RunGroup(string Serializer, string Operation, int Objects, IReadOnlyList<RunAnalysis> Runs)
{
    public IReadOnlyList<RunKey> Keys => [.. Runs.Select(r => r.Key)];

    public double Mean(Func<RunAnalysis, double> value) => Runs.Count == 0 ? 0 : Runs.Average(value);

    public double Sum(Func<RunAnalysis, double> value) => Runs.Sum(value);

    /// <summary>Threads that ran the operation at once (--threads), from results.json; 1 when unknown.</summary>
    public int Threads => Runs.Select(r => r.InProcess?.Threads ?? 1).DefaultIfEmpty(1).Max();

    public string Describe() => $"{Serializer} {Operation}{EtwSerializerProfiler.Common.Fmt.NSuffix(Objects)}";

    /// <summary>A finding about exactly these runs; detectors add the frame and evidence with <c>with { }</c>.</summary>
    public Finding FindingOf(string kind, FindingSeverity severity, string message) => new()
    {
        Kind = kind,
        Severity = severity,
        Serializer = Serializer,
        Operation = Operation,
        Objects = Objects == 0 ? null : Objects,
        Runs = Keys,
        Message = message,
    };

    public static IReadOnlyList<RunGroup> From(IEnumerable<RunAnalysis> runs) =>
        [.. runs.GroupBy(r => (r.Key.Serializer, r.Key.Operation, r.Key.Objects))
            .Select(g =>
            {
                var measured = g.Where(r => r.IsMeasured).OrderBy(r => r.Key.Run).ToList();
                return new RunGroup(g.Key.Serializer, g.Key.Operation, g.Key.Objects, measured.Count > 0 ? measured : [.. g.Where(r => !r.IsWarmup).OrderBy(r => r.Key.Run)]);
            })
            .Where(g => g.Runs.Count > 0)
            .OrderBy(g => g.Serializer, StringComparer.Ordinal).ThenBy(g => g.Operation, StringComparer.Ordinal).ThenBy(g => g.Objects)];
}
