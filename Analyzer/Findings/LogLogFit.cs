using MathNet.Numerics;

namespace EtwSerializerProfiler.Analyzer.Findings;

/// <summary>
/// Least-squares line through (log N, log time) (MathNet.Numerics' Fit.Line): the slope is the exponent k of
/// time ~ N^k. Linear work gives ~1, the seeds' BinaryFormatter object table ~2; fixed per-call costs pull the slope
/// below 1, never above.
/// </summary>
internal static class LogLogFit
{
    /// <summary>The slope, or null with fewer than two distinct positive points (no line is defined).</summary>
    public static double? Slope(IReadOnlyList<(double N, double Ms)> points)
    {
        var usable = points.Where(p => p.N > 0 && p.Ms > 0).ToList();
        if (usable.Select(p => p.N).Distinct().Count() < 2) return null;
        var (_, slope) = Fit.Line([.. usable.Select(p => Math.Log(p.N))], [.. usable.Select(p => Math.Log(p.Ms))]);
        return slope;
    }
}
