using EtwSerializerProfiler.Analyzer.Harness;

namespace EtwSerializerProfiler.Tests.Analyzer.Harness;

public sealed class BdnStatisticsTests
{
    [Fact]
    public void Quartiles_interpolate_between_order_statistics_as_type_7()
    {
        double[] values = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5];
        // R's quantile(1:10, c(.25, .5, .75)) (type 7): 3.25, 5.5, 7.75.
        Assert.Equal(3.25, BdnStatistics.Quantile(values, 0.25), 10);
        Assert.Equal(5.5, BdnStatistics.Median(values), 10);
        Assert.Equal(7.75, BdnStatistics.Quantile(values, 0.75), 10);
        Assert.Equal(7.75 + 1.5 * 4.5, BdnStatistics.UpperFence(values), 10);
    }

    [Fact]
    public void One_slow_iteration_of_fifteen_is_an_upper_outlier_and_none_of_a_tight_set_is()
    {
        var iterations = Enumerable.Repeat(0.40, 14).Select((v, i) => v + i * 0.001).Append(0.70).ToList();
        var fence = BdnStatistics.UpperFence(iterations);
        Assert.Single(iterations, v => v > fence);
        Assert.DoesNotContain(iterations.Take(14), v => v > fence);
        Assert.Equal(double.PositiveInfinity, BdnStatistics.UpperFence([]));
    }
}
