using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Tests.Analyzer.Model;

/// <summary>
/// The tracing-cost estimate: each traced block against the untraced block beside it, the median of those pairs, and
/// a two-level bootstrap interval. Runs come in block order (TracingCostHandshake.Blocks after the settling block).
/// </summary>
public sealed class TracingCostEstimateTests
{
    private const int R = 4;

    /// <summary>Six untraced and six traced blocks of R runs: block k's runs at base[k] times a little noise.</summary>
    private static List<double> Blocks(Func<int, double> perBlock, double noise = 0.01)
    {
        var random = new Random(7);
        return [.. Enumerable.Range(0, 6).SelectMany(k => Enumerable.Range(0, R).Select(_ => perBlock(k) * (1 + noise * (random.NextDouble() - 0.5))))];
    }

    [Fact]
    public void Each_traced_block_is_paired_with_the_untraced_block_beside_it()
    {
        var kept = TracingCostHandshake.Blocks.Skip(TracingCostHandshake.SettlingBlocks).ToList();
        var untracedAt = Enumerable.Range(0, kept.Count).Where(i => !kept[i]).ToList();
        var tracedAt = Enumerable.Range(0, kept.Count).Where(i => kept[i]).ToList();
        var pairs = TracingCostEstimate.BlockPairs(Blocks(k => k + 1, 0), Blocks(k => 10 * (k + 1), 0), R)!;
        Assert.Equal(tracedAt.Count, pairs.Count);
        for (var k = 0; k < pairs.Count; k++)
        {
            Assert.All(pairs[k].Untraced, v => Assert.Equal(k + 1, v));
            Assert.All(pairs[k].Traced, v => Assert.Equal(10 * (k + 1), v));
            Assert.Equal(1, Math.Abs(untracedAt[k] - tracedAt[k]));
        }
    }

    [Fact]
    public void A_known_cost_reads_with_an_interval_around_it()
    {
        var cost = TracingCostEstimate.Of(Blocks(_ => 1.0), Blocks(_ => 1.05), R)!;
        Assert.InRange(cost.Percent, 4.5, 5.5);
        Assert.InRange(cost.LowPercent, 3.5, cost.Percent);
        Assert.InRange(cost.HighPercent, cost.Percent, 6.5);
    }

    [Fact]
    public void Drift_between_blocks_falls_on_both_sides_of_each_pair()
    {
        // The machine slows down block by block (other work starting): each pair still reads the 5%.
        var untraced = Blocks(k => 1.0 + 0.2 * k);
        var traced = Blocks(k => 1.05 * (1.0 + 0.2 * k));
        Assert.InRange(TracingCostEstimate.Of(untraced, traced, R)!.Percent, 4.5, 5.5);
    }

    [Fact]
    public void A_burst_in_two_blocks_moves_the_pairs_less_than_the_pooled_runs()
    {
        // Other work doubles two untraced blocks' times: two pairs of six are spoiled, the median of pairs holds.
        var untraced = Blocks(k => k is 1 or 4 ? 2.0 : 1.0);
        var traced = Blocks(_ => 1.05);
        var paired = TracingCostEstimate.Of(untraced, traced, R)!;
        var pooled = TracingCostEstimate.Of(untraced, traced)!;
        Assert.InRange(paired.Percent, 4.0, 6.0);
        Assert.True(Math.Abs(pooled.Percent - 5) > Math.Abs(paired.Percent - 5), $"pooled {pooled.Describe()}, paired {paired.Describe()}");
    }

    [Fact]
    public void Counts_that_do_not_fill_the_blocks_fall_back_to_pooled_runs()
    {
        // Blocks that stopped early leave fewer runs: no pairs, the runs' medians instead.
        var untraced = Blocks(_ => 1.0).Take(10).ToList();
        var traced = Blocks(_ => 1.1).Take(9).ToList();
        Assert.Null(TracingCostEstimate.BlockPairs(untraced, traced, R));
        Assert.Equal(TracingCostEstimate.Of(untraced, traced)!.Percent, TracingCostEstimate.Of(untraced, traced, R)!.Percent);
    }
}
