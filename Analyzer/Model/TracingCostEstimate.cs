using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// What tracing cost one case, from the benchmark's own clocks in its tracing-cost blocks (esp record --tracing-cost):
/// the traced runs' median time per operation against the untraced runs', in the same process. Medians, because a
/// busy machine preempts single runs by several times their length. The 95% interval is a percentile bootstrap
/// (2,000 resamples of each side, fixed seed: the same input gives the same interval).
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
            if (c is not null && Of(c.UntracedMs, c.TracedMs) is { } time)
                byCase[(c.Serializer, c.Operation, c.Objects)] = time with { Cpu = Of(c.UntracedCpuMs, c.TracedCpuMs) };
        return byCase;
    }

    /// <summary>The estimate from per-run times; null below two runs a side or with no untraced time.</summary>
    public static TracingCostEstimate? Of(IReadOnlyList<double>? untraced, IReadOnlyList<double>? traced)
    {
        if (untraced is not { Count: >= 2 } || traced is not { Count: >= 2 }) return null;
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

    private static double Median(IReadOnlyList<double> values)
    {
        var sorted = values.Order().ToArray();
        var mid = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    /// <summary>"+4.2% (-1.0 to +9.4)".</summary>
    public string Describe() => FormattableString.Invariant($"{Percent:+0.0;-0.0}% ({LowPercent:+0.0;-0.0} to {HighPercent:+0.0;-0.0})");
}
