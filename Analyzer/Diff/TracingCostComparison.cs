using System.Globalization;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Diff;

/// <summary>
/// When both sides measured their tracing cost (esp record --tracing-cost), a case whose cost differs between them
/// by more than <see cref="ThresholdPoints"/>, beyond both sides' 95% intervals, gets a warning: part of its
/// difference is the tracer's, not the code's. A side's cost of a case is the mean of its launches' estimates, by the
/// thread CPU clock where there is one (<see cref="TracingCostEstimate.Headline"/>), and its interval spans its
/// launches' intervals. Costs whose intervals overlap are noise: on a loaded host 52 of 60 held zero.
/// </summary>
public static class TracingCostComparison
{
    public const double ThresholdPoints = 5;

    /// <param name="compared">The cases the diff compares (after --serializers and --n); null: every case.</param>
    public static IEnumerable<string> Warnings(IEnumerable<BenchmarkResults?> baseline, IEnumerable<BenchmarkResults?> trace,
        IReadOnlySet<(string Serializer, string Operation, int Objects)>? compared = null)
    {
        var b = PerCase(baseline);
        var t = PerCase(trace);
        foreach (var (key, bc) in b.OrderBy(k => k.Key))
        {
            if (compared is not null && !compared.Contains(key)) continue;
            if (!t.TryGetValue(key, out var tc) || !Apart(bc, tc)) continue;
            yield return string.Create(CultureInfo.InvariantCulture,
                $"tracing cost differs for {key.Serializer} {key.Operation} N={key.Objects:N0}: {Fmt.Signed(bc.Percent)}% in the baseline, {Fmt.Signed(tc.Percent)}% in the trace (esp record --tracing-cost): {Math.Abs(tc.Percent - bc.Percent):F1} points of the difference are the tracer's");
        }
    }

    /// <summary>More than <see cref="ThresholdPoints"/> apart, and the intervals do not overlap (overlapping: within noise).</summary>
    internal static bool Apart((double Percent, double Low, double High) baseline, (double Percent, double Low, double High) trace) =>
        Math.Abs(trace.Percent - baseline.Percent) > ThresholdPoints && (trace.Low > baseline.High || baseline.Low > trace.High);

    private static Dictionary<(string Serializer, string Operation, int Objects), (double Percent, double Low, double High)> PerCase(IEnumerable<BenchmarkResults?> launches) =>
        launches.SelectMany(l => TracingCostEstimate.From(l))
            .GroupBy(kv => kv.Key)
            .ToDictionary(g => g.Key, g => (g.Average(kv => kv.Value.Headline.Percent), g.Min(kv => kv.Value.Headline.LowPercent), g.Max(kv => kv.Value.Headline.HighPercent)));
}
