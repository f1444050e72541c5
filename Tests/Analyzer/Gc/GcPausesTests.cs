using EtwSerializerProfiler.Analyzer.Collections;
using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Tests.Analyzer.Gc;

/// <summary>
/// The GC pauses the charge asks "was this sample in a GC?" and "how much of this span was paused?": the same answers
/// whether the pass's list came in start order (used as it is, one entry per GC never copied) or not (sorted first).
/// </summary>
public sealed class GcPausesTests
{
    private static readonly Interval[] Pauses = [new(10, 12), new(20, 21), new(30, 34), new(50, 50.5)];

    private static Interval[] Given(bool shuffled) => shuffled ? [Pauses[2], Pauses[0], Pauses[3], Pauses[1]] : Pauses;

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Overlap_sums_the_paused_part_of_a_span(bool shuffled)
    {
        var pauses = new GcPauses(Chunked(Given(shuffled)));
        Assert.Equal(0, pauses.Overlap(0, 10));
        Assert.Equal(2, pauses.Overlap(0, 15), 12);
        Assert.Equal(1 + 1 + 2, pauses.Overlap(11, 32), 12);
        Assert.Equal(0.5, pauses.Overlap(33.5, 40), 12);
        Assert.Equal(2 + 1 + 4 + 0.5, pauses.Overlap(-1, 100), 12);
        Assert.Equal(0, pauses.Overlap(12, 20)); // between two pauses, edges touching
        Assert.Equal(0, pauses.Overlap(40, 30)); // an empty span
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void A_cursor_walked_in_time_order_says_which_times_are_paused(bool shuffled)
    {
        var cursor = new GcPauses(Chunked(Given(shuffled))).Walk();
        double[] times = [5, 10, 11.9, 12, 15, 20.5, 30, 33.99, 34, 50.25, 60];
        bool[] expected = [false, true, true, false, false, true, true, true, false, true, false];
        Assert.Equal(expected, times.Select(cursor.Contains));
    }

    [Fact]
    public void The_pass_list_in_start_order_is_used_as_it_is_and_any_other_is_sorted_into_a_copy()
    {
        var inOrder = Chunked(Pauses);
        Assert.Same(inOrder, new GcPauses(inOrder).All);
        var shuffled = Chunked([Pauses[1], Pauses[0], Pauses[2], Pauses[3]]);
        var sorted = new GcPauses(shuffled).All;
        Assert.NotSame(shuffled, sorted);
        Assert.Equal(Pauses, sorted);
    }

    private static ChunkedList<Interval> Chunked(IEnumerable<Interval> intervals)
    {
        var list = new ChunkedList<Interval>();
        foreach (var i in intervals) list.Add(i);
        return list;
    }
}
