using System.Globalization;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Diff;

/// <summary>
/// When both sides measured their tracing cost (esp record --tracing-cost), a case whose cost differs between them
/// by more than <see cref="ThresholdPoints"/> gets a warning: part of its difference is the tracer's, not the code's.
/// A side's cost of a case is the mean of its launches' estimates, by the thread CPU clock where there is one
/// (<see cref="TracingCostEstimate.Headline"/>).
/// </summary>
public static class TracingCostComparison
{
    public const double ThresholdPoints = 5;

    public static IEnumerable<string> Warnings(IEnumerable<BenchmarkResults?> baseline, IEnumerable<BenchmarkResults?> trace)
    {
        var b = MeanPerCase(baseline);
        var t = MeanPerCase(trace);
        foreach (var (key, bp) in b.OrderBy(k => k.Key))
        {
            if (!t.TryGetValue(key, out var tp) || Math.Abs(tp - bp) <= ThresholdPoints) continue;
            yield return string.Create(CultureInfo.InvariantCulture,
                $"tracing cost differs for {key.Serializer} {key.Operation} N={key.Objects:N0}: {Fmt.Signed(bp)}% in the baseline, {Fmt.Signed(tp)}% in the trace (esp record --tracing-cost): {Math.Abs(tp - bp):F1} points of the difference are the tracer's");
        }
    }

    private static Dictionary<(string Serializer, string Operation, int Objects), double> MeanPerCase(IEnumerable<BenchmarkResults?> launches) =>
        launches.SelectMany(l => TracingCostEstimate.From(l))
            .GroupBy(kv => kv.Key)
            .ToDictionary(g => g.Key, g => g.Average(kv => kv.Value.Headline.Percent));
}
