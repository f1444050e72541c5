using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Timeline;

/// <summary>The process's GC pauses (suspensions that ran a GC), sorted, for how much of a span they cover.</summary>
internal sealed class GcPauses
{
    private readonly IReadOnlyList<Interval> _pauses;

    /// <param name="pauses">
    /// The pass's pauses, one per GC: used as they are when in start order, which the pass adds them in (a long
    /// trace's hundred thousand pauses are not copied), else sorted into a copy.
    /// </param>
    public GcPauses(IEnumerable<Interval> pauses)
    {
        _pauses = pauses is IReadOnlyList<Interval> list && InStartOrder(list) ? list : [.. pauses.OrderBy(p => p.StartMs)];
    }

    private static bool InStartOrder(IReadOnlyList<Interval> list)
    {
        for (var i = 1; i < list.Count; i++)
            if (!(list[i].StartMs >= list[i - 1].StartMs)) return false;
        return true;
    }

    public IReadOnlyList<Interval> All => _pauses;

    public double Overlap(double fromMs, double toMs)
    {
        if (toMs <= fromMs || _pauses.Count == 0) return 0;
        // Pauses do not overlap one another, so their ends are sorted too: start at the first that ends after fromMs.
        var total = 0.0;
        for (var i = FirstEndingAfter(fromMs); i < _pauses.Count && _pauses[i].StartMs < toMs; i++) total += _pauses[i].Overlap(fromMs, toMs);
        return total;
    }

    private int FirstEndingAfter(double ms)
    {
        int lo = 0, hi = _pauses.Count;
        while (lo < hi)
        {
            var mid = (lo + hi) >>> 1;
            if (_pauses[mid].EndMs > ms) hi = mid; else lo = mid + 1;
        }
        return lo;
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
