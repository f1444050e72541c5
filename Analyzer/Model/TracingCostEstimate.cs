using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// What tracing cost one case, from the benchmark's own clocks in its tracing-cost blocks (esp record --tracing-cost),
/// in the same process. Each traced block is compared with the untraced block beside it (the ratio of their median
/// times per operation), and the estimate is the median of those pairs: a burst of other work on a shared machine
/// spoils a pair or two, not every traced run's comparison. Measured with the traced blocks left untraced and 5% of
/// work injected, two cores kept busy: pooled medians read +1.8% to +7.0%, pairs +4.2% to +5.4% (docs/recorder.md).
/// The 95% interval is a two-level percentile bootstrap (pairs, then runs within each block; 2,000 resamples, fixed
/// seed: the same input gives the same interval). Without block sizes (older results, or blocks that stopped early)
/// the traced runs' median is compared with the untraced runs'.
/// </summary>
internal sealed record TracingCostEstimate(double Percent, double LowPercent, double HighPercent, int UntracedRuns, int TracedRuns)
{
    /// <summary>The same from the thread CPU clock (on-CPU time only: waiting for a CPU does not count); null without it.</summary>
    public TracingCostEstimate? Cpu { get; init; }

    private const int Resamples = 2000;

    /// <summary>Per (serializer, operation, N); empty when the benchmark measured no tracing cost.</summary>
    public static IReadOnlyDictionary<(string Serializer, string Operation, int Objects), TracingCostEstimate> From(BenchmarkResults? results)
    {
        var byCase = new Dictionary<(string, string, int), TracingCostEstimate>();
        foreach (var c in results?.TracingCost ?? [])
            if (c is not null && Of(c.UntracedMs, c.TracedMs, c.RunsPerBlock) is { } time)
                byCase[(c.Serializer, c.Operation, c.Objects)] = time with { Cpu = Of(c.UntracedCpuMs, c.TracedCpuMs, c.RunsPerBlock) };
        return byCase;
    }

    /// <summary>
    /// The estimate from per-run times in block order (<see cref="TracingCostHandshake.Blocks"/>), paired by block when
    /// <paramref name="runsPerBlock"/> fits the counts; null below two runs a side or with no untraced time.
    /// </summary>
    public static TracingCostEstimate? Of(IReadOnlyList<double>? untraced, IReadOnlyList<double>? traced, int? runsPerBlock = null)
    {
        if (untraced is not { Count: >= 2 } || traced is not { Count: >= 2 }) return null;
        return runsPerBlock is { } r && BlockPairs(untraced, traced, r) is { } pairs ? Paired(pairs, untraced.Count, traced.Count) : Pooled(untraced, traced);
    }

    /// <summary>
    /// Each kept traced block with the untraced block beside it: the k-th of each, as the pattern puts them next to
    /// each other (checked here, so another pattern falls back to pooled runs). Null when the counts do not fill the blocks.
    /// </summary>
    internal static List<(double[] Untraced, double[] Traced)>? BlockPairs(IReadOnlyList<double> untraced, IReadOnlyList<double> traced, int runsPerBlock)
    {
        var kept = TracingCostHandshake.Blocks.Skip(TracingCostHandshake.SettlingBlocks).ToList();
        var untracedAt = Enumerable.Range(0, kept.Count).Where(i => !kept[i]).ToList();
        var tracedAt = Enumerable.Range(0, kept.Count).Where(i => kept[i]).ToList();
        if (runsPerBlock < 1 || untracedAt.Count != tracedAt.Count || untraced.Count != untracedAt.Count * runsPerBlock || traced.Count != tracedAt.Count * runsPerBlock)
            return null;
        if (untracedAt.Zip(tracedAt).Any(p => Math.Abs(p.First - p.Second) != 1)) return null;
        return Enumerable.Range(0, tracedAt.Count)
            .Select(k => (untraced.Skip(k * runsPerBlock).Take(runsPerBlock).ToArray(), traced.Skip(k * runsPerBlock).Take(runsPerBlock).ToArray()))
            .ToList();
    }

    private static TracingCostEstimate? Paired(List<(double[] Untraced, double[] Traced)> pairs, int untracedRuns, int tracedRuns)
    {
        if (pairs.Any(p => Median(p.Untraced) <= 0)) return null;
        var point = Median(pairs.Select(p => Median(p.Traced) / Median(p.Untraced) - 1).ToArray());
        var random = new Random(1);
        var ratios = new double[Resamples];
        var pairRatios = new double[pairs.Count];
        var r = pairs[0].Untraced.Length;
        var us = new double[r];
        var ts = new double[r];
        for (var i = 0; i < Resamples; i++)
        {
            for (var j = 0; j < pairRatios.Length; j++)
            {
                var (u, t) = pairs[random.Next(pairs.Count)];
                for (var k = 0; k < r; k++) us[k] = u[random.Next(r)];
                for (var k = 0; k < r; k++) ts[k] = t[random.Next(r)];
                var mu = MedianInPlace(us);
                pairRatios[j] = mu <= 0 ? double.PositiveInfinity : MedianInPlace(ts) / mu - 1;
            }
            ratios[i] = MedianInPlace(pairRatios);
        }
        Array.Sort(ratios);
        return new TracingCostEstimate(100 * point, 100 * ratios[(int)(0.025 * Resamples)], 100 * ratios[(int)(0.975 * Resamples) - 1], untracedRuns, tracedRuns);
    }

    private static TracingCostEstimate? Pooled(IReadOnlyList<double> untraced, IReadOnlyList<double> traced)
    {
        var u = Median(untraced);
        if (u <= 0) return null;
        var random = new Random(1);
        var ratios = new double[Resamples];
        var us = new double[untraced.Count];
        var ts = new double[traced.Count];
        for (var i = 0; i < Resamples; i++)
        {
            for (var j = 0; j < us.Length; j++) us[j] = untraced[random.Next(us.Length)];
            for (var j = 0; j < ts.Length; j++) ts[j] = traced[random.Next(ts.Length)];
            var mu = Median(us);
            ratios[i] = mu <= 0 ? double.PositiveInfinity : Median(ts) / mu - 1;
        }
        Array.Sort(ratios);
        return new TracingCostEstimate(100 * (Median(traced) / u - 1), 100 * ratios[(int)(0.025 * Resamples)], 100 * ratios[(int)(0.975 * Resamples) - 1],
            untraced.Count, traced.Count);
    }

    /// <summary>The median of a scratch array, sorting it (the bootstrap's hot path: no allocation).</summary>
    private static double MedianInPlace(double[] values)
    {
        Array.Sort(values);
        var mid = values.Length / 2;
        return values.Length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
    }

    private static double Median(IReadOnlyList<double> values)
    {
        var sorted = values.Order().ToArray();
        var mid = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    /// <summary>"+4.2% (-1.0 to +9.4)".</summary>
    public string Describe() => FormattableString.Invariant($"{Percent:+0.0;-0.0}% ({LowPercent:+0.0;-0.0} to {HighPercent:+0.0;-0.0})");
}
