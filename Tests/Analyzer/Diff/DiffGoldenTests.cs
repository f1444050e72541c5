using EtwSerializerProfiler.Analyzer.Diff;

namespace EtwSerializerProfiler.Tests.Analyzer.Diff;

/// <summary>
/// The diff's p-values and confidence intervals are unchanged on a fixed pair of real recordings: the figures the
/// hand-written t distribution gave before MathNet.Numerics replaced it (<see cref="DiffGoldenRecording"/>). The pair
/// is one launch per side, so these are Welch's test on the runs (<see cref="MetricDiff.RunNoise"/>): the within-process
/// figure; the verdict between configurations (<see cref="MetricDiff.Noise"/>) is "not judged" for every one of them.
/// </summary>
public sealed class DiffGoldenTests
{
    /// <summary>
    /// Relative tolerance: of p and ν, and of a confidence bound relative to the interval's half-width (a bound near
    /// 0 is a difference of two large numbers, Δ − t·SE, so only the half-width can be asked to keep its digits).
    /// The hand-written code was accurate to about 1e-10 (its quantile's bisection stopped at 1e-12 of the
    /// interval), MathNet's quantile is a root search to 1e-12; measured between the two on this pair: p within
    /// 3e-14, ν within 1e-15, bounds within 1e-10 of themselves. esp prints p to three decimals and intervals to
    /// three or four significant digits. Anything that is a different computation (another test, a one-sided p, a
    /// 97.5% interval, another ν) moves these figures by far more than 1e-9.
    /// </summary>
    private const double Tolerance = 1e-9;

    [Fact]
    public void Every_verdict_of_the_real_pair_matches_its_golden_figures()
    {
        var diff = DiffGoldenRecording.Diff();
        var actual = diff.Rows.SelectMany(row => row.Metrics.Concat(row.Explained.Select(e => e.Remainder)).Concat(row.Tags)
            .Select(m => (row.Serializer, row.Operation, m.Name, m.RunNoise))).ToList();
        Assert.Equal(DiffGoldenRecording.Verdicts.Select(g => (g.Serializer, g.Operation, g.Metric)), actual.Select(a => (a.Serializer, a.Operation, a.Name)));
        foreach (var (golden, (_, _, _, noise)) in DiffGoldenRecording.Verdicts.Zip(actual))
        {
            var what = $"{golden.Serializer} {golden.Operation} {golden.Metric}";
            Assert.True(golden.Significant == noise.Significant, $"{what}: significant {noise.Significant}, golden {golden.Significant}");
            AssertClose(golden.PValue, noise.PValue, what + " p");
            var halfWidth = (golden.CiHigh - golden.CiLow) / 2;
            AssertClose(golden.CiLow, noise.CiLow, what + " CI low", halfWidth);
            AssertClose(golden.CiHigh, noise.CiHigh, what + " CI high", halfWidth);
            AssertClose(golden.DegreesOfFreedom, noise.DegreesOfFreedom, what + " degrees of freedom");
        }
    }

    [Fact]
    public void One_launch_per_side_judges_none_of_the_golden_verdicts()
    {
        var metrics = DiffGoldenRecording.Diff().Rows.SelectMany(row => row.Metrics.Concat(row.Explained.Select(e => e.Remainder)).Concat(row.Tags)).ToList();
        Assert.Equal(DiffGoldenRecording.Verdicts.Length, metrics.Count);
        Assert.All(metrics, m => Assert.Null(m.Noise.Significant));
        Assert.All(metrics, m => Assert.True(m.OneLaunch, m.Name));
        // The runs' test would have called some of them significant: that is what one launch cannot claim.
        Assert.Contains(metrics, m => m.RunNoise.Significant == true);
    }

    [Fact]
    public void The_golden_pair_covers_the_cases_the_statistics_must_get_right()
    {
        // Guards the goldens' reach, so a re-capture cannot quietly drop a case.
        var v = DiffGoldenRecording.Verdicts;
        Assert.Contains(v, g => g.Significant == true && g.PValue < 1e-10);
        Assert.Contains(v, g => g.Significant == true && g.PValue > 0.01);
        Assert.Contains(v, g => g.Significant == false && g.PValue is > 0.05 and < 0.1);
        Assert.Contains(v, g => g.PValue == 1 && g.DegreesOfFreedom is not null);
        Assert.Contains(v, g => g.DegreesOfFreedom is null && g.Significant == false);
        Assert.Contains(v, g => g.DegreesOfFreedom is { } df && df != Math.Floor(df));
        Assert.Contains(v, g => g.Metric.StartsWith("Reflection\\", StringComparison.Ordinal) && g.Significant == true);
    }

    /// <summary>Within <see cref="Tolerance"/> of the larger of the two values and <paramref name="scale"/>.</summary>
    private static void AssertClose(double? expected, double? actual, string what, double? scale = null)
    {
        Assert.True(expected.HasValue == actual.HasValue, $"{what}: {actual?.ToString("R") ?? "null"}, golden {expected?.ToString("R") ?? "null"}");
        if (expected is not { } e || actual is not { } a) return;
        var of = Math.Max(Math.Max(Math.Abs(e), Math.Abs(a)), scale ?? 0);
        Assert.True(Math.Abs(a - e) <= Tolerance * of, $"{what}: {a:R}, golden {e:R} (relative difference {Math.Abs(a - e) / of:E2})");
    }
}
