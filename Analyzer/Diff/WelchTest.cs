using MathNet.Numerics.Distributions;
using MathNet.Numerics.Statistics;

namespace EtwSerializerProfiler.Analyzer.Diff;

/// <summary>Mean and spread of one metric over the measured runs of one trace.</summary>
public sealed record SampleStats(int Runs, double Mean, double StdDev)
{
    /// <summary>Mean and the unbiased (n − 1) standard deviation; one run has no spread (0), none has nothing.</summary>
    public static SampleStats Of(IReadOnlyList<double> values)
    {
        if (values.Count == 0) return new SampleStats(0, 0, 0);
        var (mean, stdDev) = values.MeanStandardDeviation();
        return new SampleStats(values.Count, mean, values.Count < 2 ? 0 : stdDev);
    }
}

/// <summary>
/// Whether a difference of means stands out from the variance of its samples (launch means, or runs for
/// <see cref="MetricDiff.RunNoise"/>). <see cref="Significant"/> is null when a side has fewer than two samples:
/// one says nothing about its own noise.
/// </summary>
public sealed record NoiseVerdict(bool? Significant, double? PValue, double? CiLow, double? CiHigh, double? DegreesOfFreedom, string? Reason)
{
    public const string NotEnoughRuns = "not enough runs to judge noise";

    /// <summary>A side has one launch: runs inside one process are not independent samples of a launch.</summary>
    public const string OneLaunch = "one launch on a side: a difference between launches cannot be judged";

    public static readonly NoiseVerdict NotJudgedOneLaunch = new(null, null, null, null, null, OneLaunch);

    public static readonly NoiseVerdict Unknown = new(null, null, null, null, null, NotEnoughRuns);

    public static readonly NoiseVerdict OneSided = new(null, null, null, null, null, "only in one trace");
}

/// <summary>
/// Welch's unequal-variance t-test on trace − baseline: the two traces come from different processes (often
/// different runtimes), so equal variances cannot be assumed. Two-sided; the confidence interval is on the
/// difference of means, mean(trace) − mean(baseline) ± t(1 − α/2, ν) · SE, with Welch–Satterthwaite ν.
/// The Student t distribution (for real ν) is MathNet.Numerics'; the test itself is the few lines below.
/// </summary>
internal static class WelchTest
{
    public static NoiseVerdict Compare(SampleStats baseline, SampleStats trace, double alpha)
    {
        if (baseline.Runs < 2 || trace.Runs < 2) return NoiseVerdict.Unknown;
        var delta = trace.Mean - baseline.Mean;
        var vb = baseline.StdDev * baseline.StdDev / baseline.Runs;
        var vt = trace.StdDev * trace.StdDev / trace.Runs;
        var se = Math.Sqrt(vb + vt);
        if (se == 0)
        {
            // Identical runs on both sides (e.g. 0 GCs everywhere): any difference is exact, none is none.
            var differs = delta != 0;
            return new NoiseVerdict(differs, differs ? 0 : 1, delta, delta, null, null);
        }
        // ν ≥ min(n_b, n_t) − 1 ≥ 1, so at α = 0.05 the critical t (≤ 12.71) is well inside the bracket MathNet's
        // quantile searches (|t| ≤ 800, i.e. α down to about 1e-3 at ν = 1).
        var df = (vb + vt) * (vb + vt) / (vb * vb / (baseline.Runs - 1) + vt * vt / (trace.Runs - 1));
        var p = TwoSidedP(delta / se, df);
        var half = CriticalT(alpha, df) * se;
        return new NoiseVerdict(p < alpha, p, delta - half, delta + half, df, null);
    }

    /// <summary>P(|T| ≥ |t|) for T ~ t(ν), from the lower tail so that tiny p-values keep their precision.</summary>
    public static double TwoSidedP(double t, double degreesOfFreedom) =>
        double.IsNaN(t) ? double.NaN : 2 * StudentT.CDF(0, 1, degreesOfFreedom, -Math.Abs(t));

    /// <summary>The t with P(|T| ≥ t) = α, e.g. 2.228 for α = 0.05 and ν = 10.</summary>
    public static double CriticalT(double twoSidedAlpha, double degreesOfFreedom) =>
        twoSidedAlpha is > 0 and < 1
            ? -StudentT.InvCDF(0, 1, degreesOfFreedom, twoSidedAlpha / 2)
            : throw new ArgumentOutOfRangeException(nameof(twoSidedAlpha), "must be in (0, 1)");
}
