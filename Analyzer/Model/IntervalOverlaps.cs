namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// The summed overlap of a list of intervals (GC pauses, suspensions, lock waits) with a span, for many spans: only
/// the intervals that can overlap it are visited, in list order, so the sum is bit for bit the full loop's (the
/// others add exactly 0). Needs the list sorted by start; any other order is summed in full. The one place a sum of
/// overlaps is taken (<see cref="SortedIntervals"/> holds the searches it shares).
/// </summary>
internal sealed class IntervalOverlaps
{
    private readonly IReadOnlyList<Interval> _intervals;
    private readonly double[] _starts;
    /// <summary>The latest end among the intervals up to each index: before the first one past a span's start, all end before it.</summary>
    private readonly double[] _maxEnds;
    private readonly bool _sorted = true;

    public IntervalOverlaps(IReadOnlyList<Interval> intervals)
    {
        _intervals = intervals;
        _starts = new double[intervals.Count];
        _maxEnds = new double[intervals.Count];
        var maxEnd = double.NegativeInfinity;
        for (var i = 0; i < intervals.Count; i++)
        {
            _starts[i] = intervals[i].StartMs;
            _maxEnds[i] = maxEnd = Math.Max(maxEnd, intervals[i].EndMs);
            if (i > 0 && !(_starts[i] >= _starts[i - 1])) _sorted = false;
        }
    }

    public double Sum(double from, double to)
    {
        var (first, last) = _sorted ? (SortedIntervals.FirstAbove(_maxEnds, from), SortedIntervals.FirstAtOrAbove(_starts, to)) : (0, _intervals.Count);
        var total = 0.0;
        for (var i = first; i < last; i++) total += _intervals[i].Overlap(from, to);
        return total;
    }
}
