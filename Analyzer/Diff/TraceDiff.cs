using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Diff;

/// <summary>Where a (serializer, operation, objects) row was found; written by its <see cref="WireNameAttribute"/>.</summary>
public enum Presence
{
    [WireName("both")] Both,
    [WireName("onlyInBaseline")] OnlyInBaseline,
    [WireName("onlyInTrace")] OnlyInTrace,
}

/// <summary>How deltas are judged; the defaults are what docs/diff.md describes.</summary>
public sealed record DiffSettings
{
    /// <summary>Two-sided significance level of Welch's t-test; the confidence intervals are 1 − Alpha.</summary>
    public double Alpha { get; init; } = 0.05;

    /// <summary>The seeds' "error margin of ca. 10%": a remainder this small relative to the baseline is negligible.</summary>
    public double Tolerance { get; init; } = 0.10;

    /// <summary>Tag prefixes factored out in the explained view: the seeds' FieldInfo.Get/SetValue and Activator.CreateInstance.</summary>
    public IReadOnlyList<string> FactoredOutTags { get; init; } = ["Reflection", "Activator"];

    /// <summary>
    /// How far apart two launches of the same case can be in CPU, as a fraction: the 95th percentile of larger/smaller − 1
    /// over every pair of untraced launches of one case, thread CPU per operation (scripts/measure/launch-noise.sh;
    /// docs/analyzer.md, "What a diff can and cannot claim"). With one launch per side a difference below it can be
    /// launch noise. Used for every metric but duration (and for stack tags, which are CPU).
    /// </summary>
    public double LaunchNoise { get; init; } = 0.70;

    /// <summary>The same for duration, which on a shared machine also carries the other processes' load.</summary>
    public double LaunchNoiseDuration { get; init; } = 1.50;

    /// <summary>The figures the analysis shows (<see cref="CaseColumn"/>); those marked <see cref="CaseColumn.Diff"/> are compared after the built-in metrics.</summary>
    public IReadOnlyList<CaseColumn> Columns { get; init; } = CaseColumns.Default;

    /// <summary>The launch noise that applies to a metric (or its remainder): duration's, or CPU's for the rest.</summary>
    public double LaunchNoiseOf(string metric) =>
        metric.StartsWith(RowDiff.DurationMs, StringComparison.Ordinal) ? LaunchNoiseDuration : LaunchNoise;
}

/// <summary>
/// One side of the comparison and what is known about how it was recorded. A side is one trace, or several
/// launches of the same configuration (<see cref="Launches"/>, each trace's path), each launch one sample.
/// </summary>
public sealed record DiffSide(
    string Path,
    string? Runtime,
    IReadOnlyList<string> Configuration,
    IReadOnlyDictionary<string, string> Unsupported,
    IReadOnlyList<string> Warnings)
{
    /// <summary>The traces of this side, one per launch; one entry (<see cref="Path"/>) for a single trace.</summary>
    public IReadOnlyList<string> Launches { get; init; } = [Path];

    /// <summary>Where the CPU figures came from (TraceInfo.CpuSource): a kernel sampler (on-CPU time) or EventPipe's
    /// (sampled managed time); null when pooled launches disagree on which of the two their figures mean ("mixed").</summary>
    public CpuSourceKind? CpuSource { get; init; } = CpuSourceKind.EventPipe;

    /// <summary>The wire name of <see cref="CpuSource"/>: its own, or "mixed".</summary>
    public string CpuSourceName => CpuSource is { } kind ? WireNames.Of(kind) : "mixed";
}

/// <summary>
/// One metric (or one stack tag's ms) of one row: statistics on each side and their difference.
/// A side is null when the row exists only in the other trace; then there is no delta.
/// <see cref="Baseline"/> and <see cref="Trace"/> count the runs, with the mean of the launches' means (each launch
/// weighs the same) and the runs' standard deviation. <see cref="Noise"/> is the verdict on launches (the unit of a
/// comparison); <see cref="RunNoise"/> is Welch's test on the runs, which sees only the noise inside the processes.
/// </summary>
public sealed record MetricDiff(string Name, SampleStats? Baseline, SampleStats? Trace, NoiseVerdict Noise)
{
    /// <summary>mean(trace) − mean(baseline).</summary>
    public double? Delta => Baseline is null || Trace is null ? null : Trace.Mean - Baseline.Mean;

    /// <summary>Delta / mean(baseline); null when the baseline is 0 or missing.</summary>
    public double? RelativeDelta => Delta is { } d && Baseline!.Mean != 0 ? d / Baseline.Mean : null;

    /// <summary>The launches' means on the baseline side: Runs = launches with this row, StdDev = their spread.</summary>
    public SampleStats? BaselineLaunches { get; init; }

    /// <summary>The launches' means on the trace side.</summary>
    public SampleStats? TraceLaunches { get; init; }

    /// <summary>
    /// Welch's test on the runs of both sides (pooled over launches): whether Δ stands out from the runs' spread.
    /// Runs inside one process share its luck, so this is not a verdict on the configurations; with one launch per
    /// side it is all the figure can claim.
    /// </summary>
    public NoiseVerdict RunNoise { get; init; } = Noise;

    /// <summary>True when a side has a single launch of this row: <see cref="Noise"/> then judges nothing.</summary>
    public bool OneLaunch => Noise.Reason == NoiseVerdict.OneLaunch;
}

/// <summary>
/// The seeds' method: of a duration or CPU delta, how much is the change in the factored-out tags (reflection,
/// Activator), and is what remains distinguishable from noise? <see cref="Remainder"/> is the per-run metric minus
/// the factored-out tags' ms, compared like any other metric.
/// </summary>
public sealed record ExplainedDiff(string Metric, double Delta, double FactoredOutDelta, MetricDiff Remainder, double BaselineMean, double Tolerance)
{
    /// <summary>
    /// FactoredOutDelta / Delta: above 0.5 the factored-out tags carry most of the change. Null when Δ is too small
    /// or too uncertain to divide by (<see cref="NoShareReason"/>): a ratio over a near-zero Δ is any number (−1068%).
    /// </summary>
    public double? FactoredOutShare => NoShareReason is null && Delta != 0 ? FactoredOutDelta / Delta : null;

    /// <summary>Why <see cref="FactoredOutShare"/> is not given; null when it is.</summary>
    public string? NoShareReason { get; init; }

    public const string TinyDelta = "Δ within the tolerance of the baseline";
    public const string DeltaWithinNoise = "Δ within noise";

    /// <summary>The remainder relative to the baseline's whole metric (not to the baseline remainder).</summary>
    public double? RemainderRelative => BaselineMean == 0 ? null : Remainder.Delta / BaselineMean;

    /// <summary>True when Welch's test finds the remainder indistinguishable from run-to-run noise; null with too few runs.</summary>
    public bool? RemainderWithinNoise => Remainder.Noise.Significant is { } significant ? !significant : null;

    /// <summary>True when the remainder is within the tolerance (default 10%) of the baseline.</summary>
    public bool WithinTolerance => RemainderRelative is { } r && Math.Abs(r) <= Tolerance;
}

/// <summary>One (serializer, operation, objects) compared across the two traces.</summary>
public sealed record RowDiff
{
    public const string DurationMs = "durationMs";
    public const string CpuMs = "cpuMs";
    public const string ThreadCpuMs = "threadCpuMs";
    public const string GcCount = "gcCount";
    public const string GcPauseMs = "gcPauseMs";
    public const string AllocatedBytes = "allocatedBytes";

    public required string Serializer { get; init; }
    public required string Operation { get; init; }
    public required int Objects { get; init; }
    public required Presence Presence { get; init; }
    /// <summary>
    /// Duration, sampled CPU, thread CPU (in-process, from results.json; only when every run has it), GC count,
    /// GC pause, allocations, in that order; then each of <see cref="DiffSettings.Columns"/> that has a diff metric.
    /// </summary>
    public required IReadOnlyList<MetricDiff> Metrics { get; init; }
    /// <summary>Sampled ms per run by stack tag path, largest |delta| first (one-sided rows: largest value first).</summary>
    public required IReadOnlyList<MetricDiff> Tags { get; init; }
    /// <summary>Duration, sampled CPU and thread CPU with the factored-out tags removed; empty unless the row is in both traces.</summary>
    public required IReadOnlyList<ExplainedDiff> Explained { get; init; }
    /// <summary>Why the row is missing on one side, when the benchmark said (e.g. "not run: ...").</summary>
    public string? Note { get; init; }

    public MetricDiff Metric(string name) => Metrics.First(m => m.Name == name);

    public MetricDiff? TryMetric(string name) => Metrics.FirstOrDefault(m => m.Name == name);
}

/// <summary>The result of `esp diff BASELINE TRACE`: every row of either trace, matched by serializer, operation and size.</summary>
public sealed record TraceDiff(DiffSide Baseline, DiffSide Trace, DiffSettings Settings, IReadOnlyList<RowDiff> Rows)
{
    /// <summary>About the comparison itself, e.g. the two traces were tagged with different stack tags files.</summary>
    public List<string> Warnings { get; } = [];

    /// <summary>Why no row is on both sides; when the same serializers were recorded at other sizes (--n), which.</summary>
    public string NothingCompared()
    {
        var baseline = Rows.Count(r => r.Presence == Presence.OnlyInBaseline);
        var trace = Rows.Count(r => r.Presence == Presence.OnlyInTrace);
        if (baseline + trace == 0) return "nothing to compare: neither trace has runs";
        var text = $"nothing to compare: no serializer, operation and object count has runs in both traces ({baseline} only in the baseline, {trace} only in the trace)";
        string Sizes(Presence side) => string.Join(", ", Rows.Where(r => r.Presence == side).Select(r => r.Objects).Distinct().Order()
            .Select(n => n == 0 ? "-" : n.ToString("N0", System.Globalization.CultureInfo.InvariantCulture)));
        var shared = Rows.Where(r => r.Presence == Presence.OnlyInBaseline).Select(r => r.Serializer)
            .Intersect(Rows.Where(r => r.Presence == Presence.OnlyInTrace).Select(r => r.Serializer), StringComparer.OrdinalIgnoreCase).Any();
        return shared ? $"{text}: the same serializers at other sizes, N {Sizes(Presence.OnlyInBaseline)} in the baseline, N {Sizes(Presence.OnlyInTrace)} in the trace" : text;
    }
}
