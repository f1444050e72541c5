using EtwSerializerProfiler.Analyzer.Collections;

namespace EtwSerializerProfiler.Tests.Analyzer.Collections;

/// <summary>The loops written for LINQ's GroupBy, Sum and OrderByDescending give what LINQ gives, on random input with ties.</summary>
public sealed class LinqLoopsTests
{
    private static readonly (string Key, double Value)[] Items = [.. Enumerable.Range(0, 500).Select(i => (Key: "k" + (i * 7919 % 23), Value: (double)(i * 31 % 5)))];

    [Fact]
    public void KeyedSums_sum_as_GroupBy_and_Sum_keys_first_seen_first()
    {
        var sums = new KeyedSums<string>();
        foreach (var (key, value) in Items) sums.Add(key, value);
        var expected = Items.GroupBy(i => i.Key).Select(g => (g.Key, g.Sum(i => i.Value))).ToList();
        Assert.Equal(expected, sums.Keys.Select(k => (k, sums[k])));
    }

    [Fact]
    public void FirstSeenGroups_group_as_GroupBy()
    {
        var groups = FirstSeenGroups.Of(Items, i => i.Key);
        Assert.Equal(Items.GroupBy(i => i.Key).Select(g => g.ToList()), groups);
    }

    [Fact]
    public void LargestFirst_orders_as_OrderByDescending_ties_in_their_order()
    {
        Assert.Equal(Items.OrderByDescending(i => i.Value), LargestFirst.Of(Items, i => i.Value));
    }
}
