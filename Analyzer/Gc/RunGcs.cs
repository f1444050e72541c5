using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Gc;

/// <summary>
/// GCs per run, counted as the pass goes: a GC is the run's whose window holds its start, edges included; pause time,
/// and its suspending and restarting parts, are clipped to each window, as GC.GetTotalPauseDuration deltas are (a
/// background GC that starts in one run may pause again in the next). A window is not final while its run is open (its
/// RunBegin moves the start, its RunEnd pins both edges to the Stopwatch's reads) and a run can still be found after the
/// fact (RunStop or a context-switch wait without RunBegin), so each GC waits until every window it could fall in is
/// settled (<see cref="Timeline.RunWindows.SettledBeforeMs"/>): what waits is the open run's GCs and the last moment's, not one
/// entry per GC of the whole trace (a long trace collects a hundred thousand times).
/// </summary>
/// <param name="settleEvery">GC parts that wait before settling is tried (again): <see cref="SettleEvery"/>, or fewer in tests.</param>
internal sealed class RunGcs(int settleEvery = RunGcs.SettleEvery)
{
    private enum Part : byte { Start, Pause, Suspending, Restarting }

    /// <summary>A GC's start (a point: StartMs = EndMs, with its generation), or one of its pause's parts.</summary>
    private readonly record struct Waiting(double StartMs, double EndMs, Part Part, int Generation);

    /// <summary>Settling is tried again once this many more GC parts wait (a long run holds its GCs until it ends).</summary>
    internal const int SettleEvery = AnalyzerOptions.DefaultGcSettleEvery;

    private readonly Queue<Waiting> _waiting = new();
    private int _settleAt;

    /// <summary>GC parts not yet counted.</summary>
    public int WaitingCount => _waiting.Count;

    /// <summary>Whether enough waits that settling is worth trying now (the pass asks after each GC event).</summary>
    public bool ShouldSettle => _waiting.Count >= Math.Max(_settleAt, settleEvery);

    /// <summary>A GC began (counted: inside a suspension, a number not seen before).</summary>
    public void Collection(double startMs, int generation) => _waiting.Enqueue(new(startMs, startMs, Part.Start, generation));

    /// <summary>A GC pause ended, with the parts its events gave.</summary>
    public void Paused(GcPause pause)
    {
        _waiting.Enqueue(new(pause.Pause.StartMs, pause.Pause.EndMs, Part.Pause, 0));
        if (pause.Suspending is { } s) _waiting.Enqueue(new(s.StartMs, s.EndMs, Part.Suspending, 0));
        if (pause.Restarting is { } r) _waiting.Enqueue(new(r.StartMs, r.EndMs, Part.Restarting, 0));
    }

    /// <summary>
    /// Counts into <paramref name="runsByStart"/> every waiting GC part that ends before <paramref name="settledMs"/>, in
    /// the order they came (a pause's parts do not overlap one another's kind, so each run adds them in time order, as a
    /// pass over the whole trace would). Parts of a process whose runs are not these are let go with an empty list.
    /// </summary>
    /// <param name="runsByStart">The runs in order of their start, windows not overlapping (runs are sequential).</param>
    public void Settle(double settledMs, IReadOnlyList<RunDraft> runsByStart)
    {
        var kept = _waiting.Count;
        for (var i = 0; i < kept; i++)
        {
            var part = _waiting.Dequeue();
            if (part.EndMs < settledMs) Count(part, runsByStart);
            else _waiting.Enqueue(part); // the same order: what stays waits as it came
        }
        _settleAt = _waiting.Count + settleEvery;
    }

    private static void Count(Waiting part, IReadOnlyList<RunDraft> runs)
    {
        var first = LastStartingAtOrBefore(runs, part.StartMs);
        if (part.Part == Part.Start)
        {
            if (first < 0 || part.StartMs > runs[first].EndMs) return;
            var run = runs[first];
            switch (part.Generation)
            {
                case 0: run.Gen0++; break;
                case 1: run.Gen1++; break;
                default: run.Gen2++; break;
            }
            return;
        }
        var interval = new Interval(part.StartMs, part.EndMs);
        for (var i = Math.Max(first, 0); i < runs.Count && runs[i].StartMs < part.EndMs; i++)
        {
            var run = runs[i];
            if (run.EndMs <= part.StartMs) continue;
            var ms = interval.Overlap(run.StartMs, run.EndMs);
            switch (part.Part)
            {
                case Part.Pause: run.GcPauseMs += ms; break;
                case Part.Suspending: run.GcSuspendMs += ms; break;
                default: run.GcRestartMs += ms; break;
            }
        }
    }

    /// <summary>The last run whose window starts at or before the time, or -1 (binary search: runs are in start order).</summary>
    private static int LastStartingAtOrBefore(IReadOnlyList<RunDraft> runs, double ms)
    {
        int lo = 0, hi = runs.Count - 1, found = -1;
        while (lo <= hi)
        {
            var mid = (lo + hi) >>> 1;
            if (runs[mid].StartMs <= ms) { found = mid; lo = mid + 1; }
            else hi = mid - 1;
        }
        return found;
    }
}
