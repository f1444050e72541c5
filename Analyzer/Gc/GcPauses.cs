using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Gc;

/// <summary>The process's GC pauses (suspensions that ran a GC), sorted, for how much of a span they cover.</summary>
internal sealed class GcPauses
{
    private readonly IReadOnlyList<Interval> _pauses;
    private readonly IntervalOverlaps _overlaps;

    /// <param name="pauses">The pass's pauses, one per GC: read where they are (<see cref="SortedIntervals.ByStart"/>).</param>
    public GcPauses(IEnumerable<Interval> pauses)
    {
        _pauses = SortedIntervals.ByStart(pauses);
        _overlaps = new IntervalOverlaps(_pauses);
    }

    public IReadOnlyList<Interval> All => _pauses;

    public double Overlap(double fromMs, double toMs) => toMs <= fromMs ? 0 : _overlaps.Sum(fromMs, toMs);

    /// <summary>Whether the time falls in a pause, asked in any order (a binary search; <see cref="Walk"/> for times in order).</summary>
    public bool Contains(double timeMs)
    {
        var i = SortedIntervals.FirstEndingAfter(_pauses, timeMs);
        return i < _pauses.Count && _pauses[i].StartMs <= timeMs;
    }

    /// <summary>Whether the time falls in a pause; calls must come in time order (a cursor walks the pauses).</summary>
    public Cursor Walk() => new(_pauses);

    public sealed class Cursor(IReadOnlyList<Interval> pauses)
    {
        private int _next;

        public bool Contains(double timeMs)
        {
            while (_next < pauses.Count && pauses[_next].EndMs <= timeMs) _next++;
            return _next < pauses.Count && pauses[_next].StartMs <= timeMs;
        }
    }
}
