using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Tests.Analyzer.Model;

/// <summary>
/// The tracing-cost estimate: the traced runs' 10th percentile against the untraced runs', and a two-level bootstrap
/// interval over block pairs. Runs come in block order (TracingCostHandshake.Blocks after the settling block).
/// </summary>
public sealed class TracingCostEstimateTests
{
    private const int R = 4;

    /// <summary>Six untraced and six traced blocks of R runs: block k's runs at base[k] times a little noise.</summary>
    private static List<double> Blocks(Func<int, double> perBlock, double noise = 0.01, int runs = R)
    {
        var random = new Random(7);
        return [.. Enumerable.Range(0, 6).SelectMany(k => Enumerable.Range(0, runs).Select(_ => perBlock(k) * (1 + noise * (random.NextDouble() - 0.5))))];
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
    public void Drift_between_blocks_falls_on_both_sides()
    {
        // The machine slows down block by block (other work starting): each side has the same blocks, so the 5% holds.
        var untraced = Blocks(k => 1.0 + 0.2 * k);
        var traced = Blocks(k => 1.05 * (1.0 + 0.2 * k));
        Assert.InRange(TracingCostEstimate.Of(untraced, traced, R)!.Percent, 4.5, 5.5);
    }

    [Fact]
    public void A_machine_twice_as_slow_in_some_blocks_leaves_the_fast_end_alone()
    {
        // As seen on this machine: its speed halved for a second or so, in either side's blocks and mid-block. Pairs'
        // medians then read 29 points off a sham; the fast ends hold the 5%.
        var untraced = Blocks(k => k is 1 or 3 or 4 ? 2.0 : 1.0);
        var traced = Blocks(k => k is 2 ? 2.1 : 1.05);
        for (var i = 0; i < R / 2; i++) traced[5 * R + i] *= 2; // the last traced block's first half
        var cost = TracingCostEstimate.Of(untraced, traced, R)!;
        Assert.InRange(cost.Percent, 4.0, 6.0);
        Assert.True(cost.LowPercent <= 5 && cost.HighPercent >= 5, cost.Describe());
        var medians = TracingCostEstimate.BlockPairs(untraced, traced, R)!.Select(p => Median(p.Traced) / Median(p.Untraced) - 1).Order().ToList();
        Assert.True(Math.Abs(100 * (medians[2] + medians[3]) / 2 - 5) > 1, "the pairs' medians would have held it too: the test shows nothing");
    }

    [Fact]
    public void A_cost_in_a_few_runs_is_read_low()
    {
        // The bias the docs state: a burst that slows two runs in ten (a sampled window of stacks) leaves the fast end.
        var untraced = Blocks(_ => 1.0);
        var traced = Blocks(_ => 1.0);
        for (var i = 0; i < traced.Count; i += 5) traced[i] *= 1.5;
        Assert.InRange(TracingCostEstimate.Of(untraced, traced, R)!.Percent, -1.0, 1.0);
    }

    private static double Median(double[] values)
    {
        var sorted = values.Order().ToArray();
        return (sorted[(sorted.Length - 1) / 2] + sorted[sorted.Length / 2]) / 2;
    }

    [Fact]
    public void Counts_that_do_not_fill_the_blocks_fall_back_to_pooled_runs()
    {
        // Blocks that stopped early leave fewer runs: no pairs, the runs resampled within each side instead.
        var untraced = Blocks(_ => 1.0).Take(10).ToList();
        var traced = Blocks(_ => 1.1).Take(9).ToList();
        Assert.Null(TracingCostEstimate.BlockPairs(untraced, traced, R));
        Assert.Equal(TracingCostEstimate.Of(untraced, traced)!.Percent, TracingCostEstimate.Of(untraced, traced, R)!.Percent);
    }

    /// <summary>
    /// Cases of one shape share one plan of draws: each case and clock reads what it reads alone. 50 runs a block is
    /// a shape too big to keep (its resamples are drawn again for each estimate).
    /// </summary>
    [Theory]
    [InlineData(R)]
    [InlineData(50)]
    public void Cases_that_share_a_plan_read_what_each_reads_alone(int runs)
    {
        TracingCostCase Case(string name, double cost, double cpuCost) => new()
        {
            Serializer = name, Operation = "serialize", Data = "d", Objects = 1, Operations = 1, RunsPerBlock = runs,
            UntracedMs = Blocks(k => 1 + k, runs: runs), TracedMs = Blocks(k => (1 + k) * (1 + cost), runs: runs),
            UntracedCpuMs = Blocks(_ => 1.0, 0.2, runs), TracedCpuMs = Blocks(_ => 1 + cpuCost, 0.3, runs),
        };
        var cases = new[] { Case("A", 0.05, 0.02), Case("B", 0.2, 0.1), Case("C", 0, 0) };
        var results = new BenchmarkResults
        {
            Runtime = ".NET 10.0", OperatingSystem = "Linux", Configuration = "Release", DebuggerAttached = false, ProcessId = 1,
            StartTimeUtc = DateTime.UtcNow, CommandLine = "test", TracingCost = [.. cases],
        };

        var byCase = TracingCostEstimate.From(results);

        foreach (var c in cases)
        {
            var shared = byCase[(c.Serializer, c.Operation, c.Objects)];
            Assert.Equal(TracingCostEstimate.Of(c.UntracedMs, c.TracedMs, runs), shared with { Cpu = null });
            Assert.Equal(TracingCostEstimate.Of(c.UntracedCpuMs, c.TracedCpuMs, runs), shared.Cpu);
        }
        var b = byCase[("B", "serialize", 1)];
        Assert.InRange(b.Percent, 19, 21);
        Assert.True(b.LowPercent <= b.Percent && b.Percent <= b.HighPercent, b.Describe());
    }

    /// <summary>Counting ranks reads what a sort of the drawn values would: random runs, ties (times a clock rounds alike), draws with repeats, every length to 100.</summary>
    [Theory]
    [InlineData(20.9, -0.001, 30.3, "+20.9% (0.0 to +30.3)")] // printed "-+0.0" before Fmt.Signed
    [InlineData(-0.04, -12.5, 0.04, "0.0% (-12.5 to 0.0)")]
    [InlineData(-1.26, -2.0, 1.26, "-1.3% (-2.0 to +1.3)")]
    public void A_figure_that_rounds_to_zero_reads_without_a_sign(double percent, double low, double high, string expected)
    {
        var cost = new TracingCostEstimate(percent, low, high, 12, 12);
        Assert.Equal(expected, cost.Describe());
        // The headline: the figure alone, marked ~ when its interval holds zero.
        Assert.Equal(expected[..expected.IndexOf(' ')] + (low <= 0 && high >= 0 ? "~" : ""), cost.DescribeHeadline());
    }

    [Fact]
    public void The_quantile_by_rank_counts_equals_the_sorted_draws()
    {
        var random = new Random(7);
        for (var n = 1; n <= 100; n++)
            for (var trial = 0; trial < 20; trial++)
            {
                var values = Enumerable.Range(0, n).Select(_ => trial % 2 == 0 ? random.NextDouble() : random.Next(5)).ToArray();
                var counts = new TracingCostEstimate.RankCounts(values);
                var drawn = trial % 4 < 2 ? Enumerable.Range(0, n).ToArray() : Enumerable.Range(0, n).Select(_ => random.Next(n)).ToArray();
                foreach (var i in drawn) counts.Draw(i);
                var sorted = drawn.Select(i => values[i]).Order().ToArray();
                var at = 0.1 * (n - 1);
                var low = (int)at;
                var high = Math.Min(low + 1, n - 1);
                Assert.Equal(sorted[low] + (sorted[high] - sorted[low]) * (at - low), counts.TakeQuantile());
                Assert.Equal(Quantile(values), counts.DrawAll().TakeQuantile()); // cleared, then the sample itself
            }

        static double Quantile(double[] values)
        {
            var sorted = values.Order().ToArray();
            var at = 0.1 * (sorted.Length - 1);
            var low = (int)at;
            return sorted[low] + (sorted[Math.Min(low + 1, sorted.Length - 1)] - sorted[low]) * (at - low);
        }
    }
}
