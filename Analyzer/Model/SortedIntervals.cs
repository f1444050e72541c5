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
    /// In intervals sorted by start that do not overlap, the one holding <paramref name="ms"/> (start inclusive, end
    /// exclusive): only the last one starting at or before it can.
    /// </summary>
    public static Interval? Holding(Interval[] disjoint, double[] starts, double ms)
    {
        var i = FirstAbove(starts, ms) - 1;
        return i >= 0 && disjoint[i].EndMs > ms ? disjoint[i] : null;
    }
}
