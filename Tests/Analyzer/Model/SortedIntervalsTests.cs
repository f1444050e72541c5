using EtwSerializerProfiler.Analyzer.Collections;
using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Tests.Analyzer.Model;

/// <summary>The per-GC lists are read where they are when in start order, and sorted into a copy only when not.</summary>
public sealed class SortedIntervalsTests
{
    [Theory]
    [InlineData(new double[] { }, true)]
    [InlineData(new double[] { 1 }, true)]
    [InlineData(new double[] { 1, 1, 2, 5 }, true)]
    [InlineData(new double[] { 1, 3, 2 }, false)]
    [InlineData(new double[] { 1, double.NaN }, false)]
    public void A_list_in_start_order_is_read_as_it_is_and_any_other_is_sorted_into_a_copy(double[] starts, bool inOrder)
    {
        var list = new ChunkedList<Interval>();
        foreach (var s in starts) list.Add(new Interval(s, s + 0.5));
        var byStart = SortedIntervals.ByStart(list);
        Assert.Equal(inOrder, ReferenceEquals(list, byStart));
        Assert.Equal(list.OrderBy(i => i.StartMs), byStart);
    }

    [Theory]
    [InlineData(0, 0)]
    [InlineData(11.9, 0)]
    [InlineData(12, 1)]
    [InlineData(20.5, 1)]
    [InlineData(21, 2)]
    [InlineData(99, 3)]
    public void The_first_interval_ending_after_a_time(double ms, int expected)
    {
        Interval[] byEnd = [new(10, 12), new(20, 21), new(30, 34)];
        Assert.Equal(expected, SortedIntervals.FirstEndingAfter(byEnd, ms));
    }
}
