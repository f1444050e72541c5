using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Output;

/// <summary>Runs of one serializer, operation and size, aggregated over the measured (non warm-up) runs.</summary>
public sealed record SerializerSummary
{
    public required string Serializer { get; init; }
    public required string Operation { get; init; }
    public required int Objects { get; init; }
    public required int Runs { get; init; }
    public double? WarmupDurationMs { get; init; }
    public required double MeanDurationMs { get; init; }
    public required double MinDurationMs { get; init; }
    public required double CpuMs { get; init; }
    public required double Gen0 { get; init; }
    public required double Gen1 { get; init; }
    public required double Gen2 { get; init; }
    public required double GcPauseMs { get; init; }
    public required double AllocatedBytes { get; init; }
    public required double ReflectionShare { get; init; }
    public required double ActivatorShare { get; init; }
    public required double Exceptions { get; init; }
    public required double ContentionMs { get; init; }
    public required double JitMs { get; init; }
    public required IReadOnlyDictionary<string, double> Tags { get; init; }
    /// <summary>Serialized size from the benchmark's results, when the trace folder has them.</summary>
    public long? SizeBytes { get; init; }

    public static IReadOnlyList<SerializerSummary> From(IEnumerable<RunAnalysis> runs) =>
        runs.GroupBy(r => (r.Key.Serializer, r.Key.Operation, r.Key.Objects))
            .Select(g =>
            {
                var all = g.ToList();
                var measured = all.Where(r => !r.IsWarmup).ToList();
                var warm = all.FirstOrDefault(r => r.IsWarmup);
                var sampled = measured.Sum(r => r.NonGcSampledMs);
                double Mean(Func<RunAnalysis, double> f) => measured.Count == 0 ? 0 : measured.Average(f);
                return new SerializerSummary
                {
                    Serializer = g.Key.Serializer,
                    Operation = g.Key.Operation,
                    Objects = g.Key.Objects,
                    Runs = measured.Count,
                    WarmupDurationMs = warm?.DurationMs,
                    MeanDurationMs = Mean(r => r.DurationMs),
                    MinDurationMs = measured.Count == 0 ? 0 : measured.Min(r => r.DurationMs),
                    CpuMs = Mean(r => r.CpuMs),
                    Gen0 = Mean(r => r.Gen0),
                    Gen1 = Mean(r => r.Gen1),
                    Gen2 = Mean(r => r.Gen2),
                    GcPauseMs = Mean(r => r.GcPauseMs),
                    AllocatedBytes = Mean(r => r.AllocatedBytes),
                    ReflectionShare = sampled == 0 ? 0 : measured.Sum(r => r.TagMs("Reflection")) / sampled,
                    ActivatorShare = sampled == 0 ? 0 : measured.Sum(r => r.TagMs("Activator")) / sampled,
                    Exceptions = Mean(r => r.Exceptions),
                    ContentionMs = Mean(r => r.ContentionMs),
                    JitMs = Mean(r => r.JitMs),
                    Tags = measured.SelectMany(r => r.Tags)
                        .GroupBy(t => t.Key)
                        .OrderByDescending(t => t.Sum(x => x.Value))
                        .ToDictionary(t => t.Key, t => t.Sum(x => x.Value) / Math.Max(1, measured.Count)),
                    SizeBytes = all.Select(r => r.InProcess?.SizeBytes).FirstOrDefault(s => s > 0),
                };
            })
            .OrderBy(s => OperationOrder(s.Operation)).ThenBy(s => s.Objects).ThenBy(s => s.MeanDurationMs)
            .ToList();

    public static int OperationOrder(string op) => op switch { "serialize" => 0, "deserialize" => 1, "firstcall" => 2, _ => 3 };
}
