using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// What tracing cost one case, from the benchmark's own clocks in its tracing-cost blocks (esp record --tracing-cost),
/// in the same process: the traced runs' fast end against the untraced runs' (the ratio of their 10th percentiles,
/// time per operation). This machine's speed moved about 2x for tenths of a second to seconds at a time, tracing or
/// not: a block pair's medians read sham costs (traced blocks left untraced, 5% and 20% injected) 29 points off, the
/// fast ends at most 3.5 (docs/recorder.md#how-to-read-the-column). A cost that hits only some runs (a burst) is read
/// low. The 95% interval is a two-level percentile bootstrap (block pairs, then runs within each block; 2,000
/// resamples from a fixed seed: the same input gives the same interval); without block sizes (older results, or blocks that
/// stopped early) runs are resampled within each side.
/// </summary>
internal sealed record TracingCostEstimate(double Percent, double LowPercent, double HighPercent, int UntracedRuns, int TracedRuns)
{
    /// <summary>The same from the thread CPU clock (on-CPU time only: waiting for a CPU does not count); null without it.</summary>
    public TracingCostEstimate? Cpu { get; init; }

    /// <summary>
    /// The figure the terminal, the finding and the diff read: the thread CPU clock's, where there is one. Waiting for
    /// a CPU moves the Stopwatch's with other work on the machine: the README's first command at load average 1-4.7
    /// read its 60 cases -45% to +85% by the Stopwatch (intervals 73 points wide at the median), -21% to +7% by the
    /// thread CPU clock (median +1.6%, intervals 4 points wide; 2026-11-26). On a quiet machine the two agree (+1.4%
    /// and +1.5% medians, docs/recorder.md).
    /// </summary>
    public TracingCostEstimate Headline => Cpu ?? this;

    /// <summary>
    /// "+1.6%": the <see cref="Headline"/> figure without its interval (the terminal's table); "-3.2%~" when the
    /// interval holds zero, so a noisy figure does not read as a cost or a gain.
    /// </summary>
    public string DescribeHeadline() => Common.Fmt.Signed(Headline.Percent) + "%" + (Headline.HoldsZero ? "~" : "");

    /// <summary>Whether the interval holds zero: tracing made no difference this estimate can tell from noise.</summary>
    public bool HoldsZero => LowPercent <= 0 && HighPercent >= 0;

    private const int Resamples = 2000;

    /// <summary>Per (serializer, operation, N); empty when the benchmark measured no tracing cost.</summary>
    public static IReadOnlyDictionary<(string Serializer, string Operation, int Objects), TracingCostEstimate> From(BenchmarkResults? results)
    {
        var byCase = new Dictionary<(string, string, int), TracingCostEstimate>();
        // Cases of one shape (blocks and runs) draw the same runs: one plan serves every case and both clocks.
        var plans = new List<DrawPlan>();
        foreach (var c in results?.TracingCost ?? [])
            if (c is not null && Of(c.UntracedMs, c.TracedMs, c.RunsPerBlock, plans) is { } time)
                byCase[(c.Serializer, c.Operation, c.Objects)] = time with { Cpu = Of(c.UntracedCpuMs, c.TracedCpuMs, c.RunsPerBlock, plans) };
        return byCase;
    }

    /// <summary>
    /// The estimate from per-run times in block order (<see cref="TracingCostHandshake.Blocks"/>), paired by block when
    /// <paramref name="runsPerBlock"/> fits the counts; null below two runs a side or with no untraced time.
    /// </summary>
    public static TracingCostEstimate? Of(IReadOnlyList<double>? untraced, IReadOnlyList<double>? traced, int? runsPerBlock = null) =>
        Of(untraced, traced, runsPerBlock, []);

    private static TracingCostEstimate? Of(IReadOnlyList<double>? untraced, IReadOnlyList<double>? traced, int? runsPerBlock, List<DrawPlan> plans)
    {
        if (untraced is not { Count: >= 2 } || traced is not { Count: >= 2 }) return null;
        return runsPerBlock is { } r && BlockPairs(untraced, traced, r) is { } pairs
            ? Estimate(Concat(pairs, traced: false), Concat(pairs, traced: true), DrawPlan.For(plans, pairs.Count, r, untraced.Count, traced.Count))
            : Estimate([.. untraced], [.. traced], DrawPlan.For(plans, 0, 0, untraced.Count, traced.Count));
    }

    /// <summary>
    /// Each kept traced block with the untraced block beside it: the k-th of each, as the pattern puts them next to
    /// each other (checked here, so another pattern falls back to pooled runs). Null when the counts do not fill the blocks.
    /// </summary>
    internal static List<(double[] Untraced, double[] Traced)>? BlockPairs(IReadOnlyList<double> untraced, IReadOnlyList<double> traced, int runsPerBlock)
    {
        // Loops, not LINQ over booleans, doubles and tuples: that ran as tier-0 JIT code in the ReadyToRun build.
        var blocks = TracingCostHandshake.Blocks;
        var untracedAt = new List<int>();
        var tracedAt = new List<int>();
        for (var i = TracingCostHandshake.SettlingBlocks; i < blocks.Count; i++) (blocks[i] ? tracedAt : untracedAt).Add(i - TracingCostHandshake.SettlingBlocks);
        if (runsPerBlock < 1 || untracedAt.Count != tracedAt.Count || untraced.Count != untracedAt.Count * runsPerBlock || traced.Count != tracedAt.Count * runsPerBlock)
            return null;
        for (var k = 0; k < tracedAt.Count; k++)
            if (Math.Abs(untracedAt[k] - tracedAt[k]) != 1) return null;
        var pairs = new List<(double[] Untraced, double[] Traced)>(tracedAt.Count);
        for (var k = 0; k < tracedAt.Count; k++) pairs.Add((Slice(untraced, k * runsPerBlock, runsPerBlock), Slice(traced, k * runsPerBlock, runsPerBlock)));
        return pairs;
    }

    private static double[] Slice(IReadOnlyList<double> values, int from, int count)
    {
        var slice = new double[count];
        for (var i = 0; i < count; i++) slice[i] = values[from + i];
        return slice;
    }

    /// <summary>Every pair's runs of one side, in pair order.</summary>
    private static double[] Concat(List<(double[] Untraced, double[] Traced)> pairs, bool traced)
    {
        var all = new List<double>();
        foreach (var (u, t) in pairs) all.AddRange(traced ? t : u);
        return [.. all];
    }

    /// <summary>The share of each side's runs below the figure read: the fast end, where other work slowed no run.</summary>
    private const double Quantile = 0.1;

    private static TracingCostEstimate? Estimate(double[] untraced, double[] traced, DrawPlan plan)
    {
        var us = new RankCounts(untraced);
        var ts = new RankCounts(traced);
        var point = Ratio(us.DrawAll(), ts.DrawAll());
        if (double.IsInfinity(point)) return null;
        var ratios = new double[Resamples];
        for (var i = 0; i < Resamples; i++)
        {
            plan.Resample(i, us, ts);
            ratios[i] = Ratio(us, ts);
        }
        var (low, high) = Interval(ratios);
        return new TracingCostEstimate(100 * point, low, high, untraced.Length, traced.Length);
    }

    /// <summary>
    /// Every resample's draws, run by run, for one shape: with blocks (pairs above 0), block pairs and then runs within
    /// each block; without, runs within each side. The random numbers depend on the shape alone.
    /// </summary>
    private sealed class DrawPlan
    {
        /// <summary>Draws a plan keeps at most (4 MB): a bigger shape draws each resample again as it is read.</summary>
        private const long MostKept = 1 << 20;

        private readonly int _pairs, _runsPerBlock, _untracedRuns, _tracedRuns;
        private readonly bool _kept;
        private readonly int[] _untraced, _traced;
        private Draws _random = new(1);

        private DrawPlan(int pairs, int runsPerBlock, int untracedRuns, int tracedRuns)
        {
            (_pairs, _runsPerBlock, _untracedRuns, _tracedRuns) = (pairs, runsPerBlock, untracedRuns, tracedRuns);
            _kept = (long)Resamples * (untracedRuns + tracedRuns) <= MostKept;
            var copies = _kept ? Resamples : 1;
            _untraced = new int[copies * untracedRuns];
            _traced = new int[copies * tracedRuns];
            if (_kept)
                for (var i = 0; i < Resamples; i++) Draw(i);
        }

        public static DrawPlan For(List<DrawPlan> plans, int pairs, int runsPerBlock, int untracedRuns, int tracedRuns)
        {
            foreach (var p in plans)
                if (p._pairs == pairs && p._runsPerBlock == runsPerBlock && p._untracedRuns == untracedRuns && p._tracedRuns == tracedRuns) return p;
            var plan = new DrawPlan(pairs, runsPerBlock, untracedRuns, tracedRuns);
            plans.Add(plan);
            return plan;
        }

        /// <summary>Resample <paramref name="i"/>'s draws, into each side. A plan not kept draws them now: read it in order from 0.</summary>
        public void Resample(int i, RankCounts untraced, RankCounts traced)
        {
            if (!_kept)
            {
                if (i == 0) _random = new Draws(1);
                Draw(0);
                i = 0;
            }
            untraced.Draw(_untraced.AsSpan(i * _untracedRuns, _untracedRuns));
            traced.Draw(_traced.AsSpan(i * _tracedRuns, _tracedRuns));
        }

        /// <summary>The next resample's draws, into copy <paramref name="at"/>.</summary>
        private void Draw(int at)
        {
            int nu = at * _untracedRuns, nt = at * _tracedRuns;
            if (_pairs == 0)
            {
                for (var j = 0; j < _untracedRuns; j++) _untraced[nu++] = _random.Next(_untracedRuns);
                for (var j = 0; j < _tracedRuns; j++) _traced[nt++] = _random.Next(_tracedRuns);
                return;
            }
            for (var j = 0; j < _pairs; j++)
            {
                var block = _random.Next(_pairs) * _runsPerBlock;
                for (var k = 0; k < _runsPerBlock; k++) _untraced[nu++] = block + _random.Next(_runsPerBlock);
                for (var k = 0; k < _runsPerBlock; k++) _traced[nt++] = block + _random.Next(_runsPerBlock);
            }
        }
    }

    /// <summary>Traced against untraced at their <see cref="Quantile"/>, minus one, over the draws; infinity without untraced time. Clears both.</summary>
    private static double Ratio(RankCounts untraced, RankCounts traced)
    {
        var (u, t) = (untraced.TakeQuantile(), traced.TakeQuantile());
        return u <= 0 ? double.PositiveInfinity : t / u - 1;
    }

    /// <summary>
    /// One side's resample as counts by rank: the bootstrap's hot path. A draw of a run adds one to its rank among the
    /// side's runs (sorted once), and the <see cref="Quantile"/> walks the counts from the smallest: the same two
    /// order statistics a selection over the drawn values reads, so the same interval, without moving any value.
    /// </summary>
    internal sealed class RankCounts
    {
        private readonly double[] _sorted;
        private readonly int[] _rankOf;
        private readonly int[] _counts;
        private int _drawn;

        public RankCounts(double[] values)
        {
            // One sort of the values, carrying each run's place along: the sorted values and every run's rank.
            _sorted = (double[])values.Clone();
            var order = new int[values.Length];
            for (var i = 0; i < order.Length; i++) order[i] = i;
            Array.Sort(_sorted, order);
            _rankOf = new int[values.Length];
            for (var rank = 0; rank < order.Length; rank++) _rankOf[order[rank]] = rank;
            _counts = new int[values.Length];
        }

        /// <summary>Every run drawn once: the sample itself (the point estimate).</summary>
        public RankCounts DrawAll()
        {
            for (var i = 0; i < _rankOf.Length; i++) Draw(i);
            return this;
        }

        /// <summary>Run <paramref name="index"/> (its place in the values given) drawn once more.</summary>
        public void Draw(int index)
        {
            _counts[_rankOf[index]]++;
            _drawn++;
        }

        /// <summary>Each of the runs (their places in the values given) drawn once more: one resample's side.</summary>
        public void Draw(ReadOnlySpan<int> runs)
        {
            foreach (var run in runs) _counts[_rankOf[run]]++;
            _drawn += runs.Length;
        }

        /// <summary>The drawn values' <see cref="Quantile"/>, interpolated between the two order statistics around it, as if sorted; the counts start over.</summary>
        public double TakeQuantile()
        {
            var at = Quantile * (_drawn - 1);
            var low = (int)at;
            double lowValue = 0, highValue = 0;
            var seen = 0;
            for (var rank = 0; rank < _counts.Length; rank++)
            {
                // This rank's draws hold the order statistics seen .. end - 1.
                var end = seen + _counts[rank];
                if (seen <= low && low < end) lowValue = _sorted[rank];
                if (low + 1 < end) { highValue = _sorted[rank]; break; }
                seen = end;
            }
            var n = _drawn;
            Array.Clear(_counts);
            _drawn = 0;
            return low + 1 >= n ? lowValue : lowValue + (highValue - lowValue) * (at - low);
        }
    }

    /// <summary>The resampled ratios' 2.5th and 97.5th percentiles, in percent: the two order statistics a sort would read, selected.</summary>
    private static (double Low, double High) Interval(double[] ratios) =>
        (100 * Select(ratios, (int)(0.025 * Resamples)), 100 * Select(ratios, (int)(0.975 * Resamples) - 1));

    /// <summary>
    /// The bootstrap's draws: SplitMix64 from a fixed seed, so the same input gives the same interval. A seeded
    /// <see cref="Random"/> (its compatible, slower generator) took most of the bootstrap's time.
    /// </summary>
    private struct Draws(ulong seed)
    {
        private ulong _state = seed;

        /// <summary>0 to <paramref name="count"/> - 1, from the high 32 bits (multiply and shift: no division).</summary>
        public int Next(int count)
        {
            var z = _state += 0x9E3779B97F4A7C15;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
            z ^= z >> 31;
            return (int)(((z >> 32) * (ulong)count) >> 32);
        }
    }

    /// <summary>The k-th smallest value (Hoare's selection), leaving smaller values before k and larger ones after.</summary>
    private static double Select(double[] a, int k)
    {
        int lo = 0, hi = a.Length - 1;
        while (lo < hi)
        {
            var pivot = a[lo + ((hi - lo) >> 1)];
            int i = lo, j = hi;
            while (i <= j)
            {
                while (a[i] < pivot) i++;
                while (a[j] > pivot) j--;
                if (i > j) break;
                (a[i], a[j]) = (a[j], a[i]);
                i++;
                j--;
            }
            if (k <= j) hi = j;
            else if (k >= i) lo = i;
            else return a[k];
        }
        return a[k];
    }

    /// <summary>"+4.2% (-1.0 to +9.4)".</summary>
    public string Describe() => $"{Common.Fmt.Signed(Percent)}% ({Common.Fmt.Signed(LowPercent)} to {Common.Fmt.Signed(HighPercent)})";
}
