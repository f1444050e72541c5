using EtwSerializerProfiler.Analyzer.Diff;

namespace EtwSerializerProfiler.Tests.Analyzer;

/// <summary>
/// The diff's p-values and confidence intervals are unchanged on a fixed pair of real recordings: the figures the
/// hand-written t distribution gave before MathNet.Numerics replaced it (<see cref="DiffGoldenRecording"/>).
/// </summary>
public sealed class DiffGoldenTests
{
    /// <summary>
    /// Relative tolerance. The hand-written code was accurate to about 1e-10 (its incomplete beta's continued
    /// fraction stopped at 1e-15 per step, its quantile's bisection at 1e-12 of the interval), and MathNet agrees
    /// with it to 1e-13 on these inputs; esp prints p to three decimals and intervals to three or four significant
    /// digits. Anything that is a different computation (another test, a one-sided p, a 97.5% interval, another ν)
    /// moves these figures by far more than 1e-9.
    /// </summary>
    private const double Tolerance = 1e-9;

    [Fact]
    public void Every_verdict_of_the_real_pair_matches_its_golden_figures()
    {
        var diff = DiffGoldenRecording.Diff();
        var actual = diff.Rows.SelectMany(row => row.Metrics.Concat(row.Explained.Select(e => e.Remainder)).Concat(row.Tags)
            .Select(m => (row.Serializer, row.Operation, m.Name, m.Noise))).ToList();
        Assert.Equal(DiffGoldenRecording.Verdicts.Select(g => (g.Serializer, g.Operation, g.Metric)), actual.Select(a => (a.Serializer, a.Operation, a.Name)));
        foreach (var (golden, (_, _, _, noise)) in DiffGoldenRecording.Verdicts.Zip(actual))
        {
            var what = $"{golden.Serializer} {golden.Operation} {golden.Metric}";
            Assert.True(golden.Significant == noise.Significant, $"{what}: significant {noise.Significant}, golden {golden.Significant}");
            AssertClose(golden.PValue, noise.PValue, what + " p");
            AssertClose(golden.CiLow, noise.CiLow, what + " CI low");
            AssertClose(golden.CiHigh, noise.CiHigh, what + " CI high");
            AssertClose(golden.DegreesOfFreedom, noise.DegreesOfFreedom, what + " degrees of freedom");
        }
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

    private static void AssertClose(double? expected, double? actual, string what)
    {
        Assert.True(expected.HasValue == actual.HasValue, $"{what}: {actual?.ToString("R") ?? "null"}, golden {expected?.ToString("R") ?? "null"}");
        if (expected is not { } e || actual is not { } a) return;
        Assert.True(Math.Abs(a - e) <= Tolerance * Math.Max(Math.Abs(e), Math.Abs(a)),
            $"{what}: {a:R}, golden {e:R} (relative difference {Math.Abs(a - e) / Math.Max(Math.Abs(e), Math.Abs(a)):E2})");
    }
}
