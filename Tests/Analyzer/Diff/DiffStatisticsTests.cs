using EtwSerializerProfiler.Analyzer.Diff;

namespace EtwSerializerProfiler.Tests.Analyzer.Diff;

/// <summary>
/// The t distribution as Welch's test uses it (MathNet.Numerics' StudentT, two-sided) and the test itself against
/// published values (t tables; Wikipedia's Welch example 1).
/// </summary>
public sealed class DiffStatisticsTests
{
    [Theory]
    [InlineData(1, 12.7062)]
    [InlineData(5, 2.5706)]
    [InlineData(10, 2.2281)]
    [InlineData(30, 2.0423)]
    [InlineData(1_000_000, 1.9600)]
    public void Quantile_matches_the_t_table_at_95_percent(double df, double expected) =>
        Assert.Equal(expected, WelchTest.CriticalT(0.05, df), 3);

    [Fact]
    public void Two_sided_p_matches_known_values_and_inverts_the_quantile()
    {
        Assert.Equal(0.073388, WelchTest.TwoSidedP(2.0, 10), 5);
        Assert.Equal(1.0, WelchTest.TwoSidedP(0, 3), 12);
        Assert.Equal(0.0, WelchTest.TwoSidedP(double.PositiveInfinity, 3));
        // Welch's ν is not an integer: the pair must still be consistent there.
        foreach (var df in new[] { 1.3, 2.7, 4.5, 24.99 })
            Assert.Equal(0.05, WelchTest.TwoSidedP(WelchTest.CriticalT(0.05, df), df), 9);
    }

    [Fact]
    public void Welch_reproduces_the_textbook_example()
    {
        double[] a1 = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4];
        double[] a2 = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4];
        var v = WelchTest.Compare(SampleStats.Of(a1), SampleStats.Of(a2), 0.05);
        Assert.True(v.Significant);
        Assert.Equal(0.02138, v.PValue!.Value, 4);
        Assert.Equal(24.99, v.DegreesOfFreedom!.Value, 2);
        // The interval is around the mean difference (2.1667) and excludes 0 exactly when p < α.
        Assert.True(v.CiLow > 0 && v.CiHigh > v.CiLow);
        Assert.Equal(2.1667, (v.CiLow!.Value + v.CiHigh!.Value) / 2, 3);
    }

    [Fact]
    public void Fewer_than_two_runs_on_either_side_cannot_be_judged()
    {
        var one = SampleStats.Of([10.0]);
        var many = SampleStats.Of([1.0, 2.0, 3.0]);
        foreach (var v in new[] { WelchTest.Compare(one, many, 0.05), WelchTest.Compare(many, one, 0.05), WelchTest.Compare(SampleStats.Of([]), many, 0.05) })
        {
            Assert.Null(v.Significant);
            Assert.Null(v.PValue);
            Assert.Equal(NoiseVerdict.NotEnoughRuns, v.Reason);
        }
    }

    [Fact]
    public void Identical_runs_are_exact_whether_equal_or_not()
    {
        var zero = WelchTest.Compare(SampleStats.Of([0.0, 0.0, 0.0]), SampleStats.Of([0.0, 0.0]), 0.05);
        Assert.False(zero.Significant);
        Assert.Equal(1.0, zero.PValue);
        var shifted = WelchTest.Compare(SampleStats.Of([1.0, 1.0]), SampleStats.Of([2.0, 2.0]), 0.05);
        Assert.True(shifted.Significant);
        Assert.Equal(1.0, shifted.CiLow);
        Assert.Equal(1.0, shifted.CiHigh);
    }

    [Fact]
    public void Overlapping_noisy_runs_are_not_significant_and_separated_runs_are()
    {
        var noisy = WelchTest.Compare(SampleStats.Of([10, 14, 9, 13]), SampleStats.Of([12, 9, 15, 11]), 0.05);
        Assert.False(noisy.Significant);
        Assert.True(noisy.CiLow < 0 && noisy.CiHigh > 0);
        var clear = WelchTest.Compare(SampleStats.Of([10, 10.5, 9.5, 10.2]), SampleStats.Of([20, 21, 19.5, 20.4]), 0.05);
        Assert.True(clear.Significant);
        Assert.True(clear.PValue < 0.001);
    }

    [Fact]
    public void Sample_stats_use_the_unbiased_standard_deviation()
    {
        var s = SampleStats.Of([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        Assert.Equal(8, s.Runs);
        Assert.Equal(5.0, s.Mean, 12);
        Assert.Equal(Math.Sqrt(32.0 / 7), s.StdDev, 12);
    }
}
