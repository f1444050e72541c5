namespace EtwSerializerProfiler.Analyzer.Diff;

/// <summary>Mean and spread of one metric over the measured runs of one trace.</summary>
public sealed record SampleStats(int Runs, double Mean, double StdDev)
{
    public static SampleStats Of(IReadOnlyList<double> values)
    {
        if (values.Count == 0) return new SampleStats(0, 0, 0);
        var mean = values.Average();
        var variance = values.Count < 2 ? 0 : values.Sum(v => (v - mean) * (v - mean)) / (values.Count - 1);
        return new SampleStats(values.Count, mean, Math.Sqrt(variance));
    }
}

/// <summary>
/// Whether a difference of means stands out from run-to-run variance. <see cref="Significant"/> is null when a
/// side has fewer than two runs: one run says nothing about its own noise.
/// </summary>
public sealed record NoiseVerdict(bool? Significant, double? PValue, double? CiLow, double? CiHigh, double? DegreesOfFreedom, string? Reason)
{
    public const string NotEnoughRuns = "not enough runs to judge noise";

    public static readonly NoiseVerdict Unknown = new(null, null, null, null, null, NotEnoughRuns);

    public static readonly NoiseVerdict OneSided = new(null, null, null, null, null, "only in one trace");
}

/// <summary>
/// Welch's unequal-variance t-test on trace − baseline: the two traces come from different processes (often
/// different runtimes), so equal variances cannot be assumed. Two-sided; the confidence interval is on the
/// difference of means, mean(trace) − mean(baseline) ± t(1 − α/2, ν) · SE, with Welch–Satterthwaite ν.
/// </summary>
public static class WelchTest
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
        var df = (vb + vt) * (vb + vt) / (vb * vb / (baseline.Runs - 1) + vt * vt / (trace.Runs - 1));
        var p = StudentT.TwoSidedP(delta / se, df);
        var half = StudentT.Quantile(alpha, df) * se;
        return new NoiseVerdict(p < alpha, p, delta - half, delta + half, df, null);
    }
}
