namespace EtwSerializerProfiler.Analyzer.Harness;

/// <summary>
/// The two statistics BenchmarkDotNet's Mean rests on, written from their definitions (the analyzer does not reference
/// BenchmarkDotNet): the median, and Tukey's upper fence Q3 + 1.5 IQR with quartiles by linear interpolation between
/// order statistics (Hyndman and Fan's type 7, perfolizer's default and Excel's PERCENTILE.INC).
/// </summary>
internal static class BdnStatistics
{
    public const double TukeyK = 1.5;

    public static double Median(IReadOnlyList<double> values) => Quantile(values, 0.5);

    /// <summary>Above it, a value is an upper outlier; +infinity for no values (nothing is).</summary>
    public static double UpperFence(IReadOnlyList<double> values)
    {
        if (values.Count == 0) return double.PositiveInfinity;
        var q1 = Quantile(values, 0.25);
        var q3 = Quantile(values, 0.75);
        return q3 + TukeyK * (q3 - q1);
    }

    /// <summary>Type 7: h = (n - 1) p, between the sorted values at floor(h) and the next.</summary>
    public static double Quantile(IReadOnlyList<double> values, double p)
    {
        if (values.Count == 0) throw new ArgumentException("no values", nameof(values));
        var sorted = values.Order().ToArray();
        var h = (sorted.Length - 1) * p;
        var low = (int)Math.Floor(h);
        var high = Math.Min(low + 1, sorted.Length - 1);
        return sorted[low] + (h - low) * (sorted[high] - sorted[low]);
    }
}
