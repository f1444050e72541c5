using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Timeline;

/// <summary>The process's GC pauses (suspensions that ran a GC), sorted, for how much of a span they cover.</summary>
internal sealed class GcPauses
{
    private readonly IReadOnlyList<Interval> _pauses;

    /// <param name="pauses">The pass's pauses, one per GC: read where they are (<see cref="SortedIntervals.ByStart"/>).</param>
    public GcPauses(IEnumerable<Interval> pauses) => _pauses = SortedIntervals.ByStart(pauses);

    public IReadOnlyList<Interval> All => _pauses;

    public double Overlap(double fromMs, double toMs)
    {
        if (toMs <= fromMs || _pauses.Count == 0) return 0;
        // Pauses do not overlap one another, so their ends are sorted too: start at the first that ends after fromMs.
        var total = 0.0;
        for (var i = SortedIntervals.FirstEndingAfter(_pauses, fromMs); i < _pauses.Count && _pauses[i].StartMs < toMs; i++) total += _pauses[i].Overlap(fromMs, toMs);
        return total;
    }

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
