namespace EtwSerializerProfiler.Analyzer.Findings;

/// <summary>
/// Least-squares line through (log N, log time): the slope is the exponent k of time ~ N^k. Linear work gives ~1,
/// the seeds' BinaryFormatter object table ~2; fixed per-call costs pull the slope below 1, never above.
/// </summary>
public static class LogLogFit
{
    /// <summary>The slope, or null with fewer than two distinct positive points.</summary>
    public static double? Slope(IReadOnlyList<(double N, double Ms)> points)
    {
        var usable = points.Where(p => p.N > 0 && p.Ms > 0).Select(p => (X: Math.Log(p.N), Y: Math.Log(p.Ms))).ToList();
        if (usable.Select(p => p.X).Distinct().Count() < 2) return null;
        var meanX = usable.Average(p => p.X);
        var meanY = usable.Average(p => p.Y);
        var sxx = usable.Sum(p => (p.X - meanX) * (p.X - meanX));
        var sxy = usable.Sum(p => (p.X - meanX) * (p.Y - meanY));
        return sxy / sxx;
    }
}
