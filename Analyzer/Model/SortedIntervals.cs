namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// Binary searches over interval starts and ends sorted ascending: shared by the stages that ask, for many samples,
/// which interval holds a time (RuntimeWork) or which can overlap a span (IntervalOverlaps).
/// </summary>
internal static class SortedIntervals
{
    /// <summary>The index of the first value greater than <paramref name="value"/> (the length if none).</summary>
    public static int FirstAbove(ReadOnlySpan<double> sorted, double value)
    {
        int lo = 0, hi = sorted.Length;
        while (lo < hi)
        {
            var mid = (lo + hi) >>> 1;
            if (sorted[mid] > value) hi = mid; else lo = mid + 1;
        }
        return lo;
    }

    /// <summary>The index of the first value at or above <paramref name="value"/> (the length if none).</summary>
    public static int FirstAtOrAbove(ReadOnlySpan<double> sorted, double value)
    {
        int lo = 0, hi = sorted.Length;
        while (lo < hi)
        {
            var mid = (lo + hi) >>> 1;
            if (sorted[mid] >= value) hi = mid; else lo = mid + 1;
        }
        return lo;
    }

    /// <summary>
    /// The intervals in start order: the list itself where it already is (the pass adds each suspension as it ends, so
    /// a long trace's hundred thousand GCs are not copied), else a sorted copy.
    /// </summary>
    public static IReadOnlyList<Interval> ByStart(IEnumerable<Interval> intervals)
    {
        if (intervals is IReadOnlyList<Interval> list && InStartOrder(list)) return list;
        return [.. intervals.OrderBy(i => i.StartMs)];
    }

    private static bool InStartOrder(IReadOnlyList<Interval> list)
    {
        for (var i = 1; i < list.Count; i++)
            if (!(list[i].StartMs >= list[i - 1].StartMs)) return false;
        return true;
    }

    /// <summary>In intervals sorted by end, the index of the first that ends after <paramref name="ms"/> (the count if none).</summary>
    public static int FirstEndingAfter(IReadOnlyList<Interval> byEnd, double ms)
    {
        int lo = 0, hi = byEnd.Count;
        while (lo < hi)
        {
            var mid = (lo + hi) >>> 1;
            if (byEnd[mid].EndMs > ms) hi = mid; else lo = mid + 1;
        }
        return lo;
    }

    /// <summary>
    /// In intervals sorted by start that do not overlap, the one holding <paramref name="ms"/> (start inclusive, end
    /// exclusive): only the last one starting at or before it can.
    /// </summary>
    public static Interval? Holding(Interval[] disjoint, double[] starts, double ms)
    {
        var i = FirstAbove(starts, ms) - 1;
        return i >= 0 && disjoint[i].EndMs > ms ? disjoint[i] : null;
    }
}
