using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;

namespace EtwSerializerProfiler.Tests.Analyzer.Model;

/// <summary>Visiting only the intervals that can overlap a span gives the full loop's sum, bit for bit.</summary>
public sealed class IntervalOverlapsTests
{
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void The_sum_is_the_full_loops_for_sorted_and_unsorted_lists(bool sorted)
    {
        var random = new Random(21);
        var intervals = Enumerable.Range(0, 300).Select(_ =>
        {
            var start = random.NextDouble() * 1000;
            return new Interval(start, start + random.NextDouble() * (random.Next(10) == 0 ? 200 : 2));
        }).ToList();
        if (sorted) intervals.Sort((a, b) => a.StartMs.CompareTo(b.StartMs));
        var index = new IntervalOverlaps(intervals);
        for (var i = 0; i < 2000; i++)
        {
            var from = random.NextDouble() * 1100 - 50;
            var to = from + random.NextDouble() * 30;
            var full = 0.0;
            foreach (var interval in intervals) full += interval.Overlap(from, to);
            Assert.Equal(BitConverter.DoubleToInt64Bits(full), BitConverter.DoubleToInt64Bits(index.Sum(from, to)));
        }
        Assert.Equal(0.0, new IntervalOverlaps([]).Sum(0, 10));
    }
}
