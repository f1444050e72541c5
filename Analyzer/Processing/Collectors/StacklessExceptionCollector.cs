using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Processing.Collectors;

/// <summary>
/// Exceptions recorded beside the trace (<see cref="ExceptionFiles"/>): every throw without its stack, and a sample of
/// throws with theirs. The pass hands it its position on the clock (<see cref="Before"/>, before each of its events):
/// the throws up to there are charged to the run and thread the pass would charge an event of theirs, as one stage with
/// its own state. Each run's (and thread's) count by type is exact; its sites are the sampled stacks' sites of that type
/// in that run, scaled to the count (<see cref="Shares"/>), or the whole trace's when the run has none.
/// </summary>
internal sealed class StacklessExceptionCollector(ExceptionFiles files)
{
    private sealed class Tally
    {
        public readonly Dictionary<string, long> Counts = new(StringComparer.Ordinal);
        public readonly Dictionary<string, List<int>> Stacks = new(StringComparer.Ordinal);
    }

    private readonly Dictionary<object, Tally> _tallies = new(ReferenceEqualityComparer.Instance);
    private readonly Dictionary<string, List<int>> _allStacks = new(StringComparer.Ordinal);
    private int _next;
    private int _nextSample;
    private int _nextMark;

    /// <summary>Throws counted so far, and of those sampled with a stack.</summary>
    public long Throws { get; private set; }
    public long Sampled { get; private set; }
    public int Windows => files.Windows;
    /// <summary>The sampled throws' stacks, leaf first (<see cref="Samples.ThrowCallSites"/> finds the call sites in them).</summary>
    public IEnumerable<ulong[]> SampledStacks => files.Samples.Select(t => t.LeafFirst);
    /// <summary>The stackless file stopped before the throws did (<see cref="ExceptionFiles.StoppedEarly"/>).</summary>
    public bool StoppedEarly => files.StoppedEarly;

    /// <summary>
    /// Charges every throw and sampled throw before <paramref name="qpc"/>: <paramref name="where"/> gives the run and
    /// thread a thread's event is charged to now, <paramref name="intern"/> a stack's id (-1 when stacks cannot be named).
    /// </summary>
    /// <param name="dispatch">Each exception's dispatch starting and ending (clock value, thread, start), for the native time it spans.</param>
    public void Before(long qpc, Func<int, (RunDraft? Run, ThreadDraft? Thread)> where, Func<ulong[], int> intern, Action<long, int, bool>? dispatch = null)
    {
        var marks = files.Dispatch;
        while (_nextMark < marks.Count && marks[_nextMark].Qpc < qpc)
        {
            var m = marks[_nextMark++];
            dispatch?.Invoke(m.Qpc, m.ThreadId, m.Start);
        }
        var throws = files.Throws;
        while (_next < throws.Count && throws[_next].Qpc < qpc)
        {
            var t = throws[_next++];
            var (run, thread) = where(t.ThreadId);
            Count(run, t.Type);
            Count(thread, t.Type);
            Throws++;
        }
        var samples = files.Samples;
        while (_nextSample < samples.Count && samples[_nextSample].Qpc < qpc)
        {
            var s = samples[_nextSample++];
            var stack = intern(s.LeafFirst);
            var (run, thread) = where(s.ThreadId);
            Sample(run, s.Type, stack);
            Sample(thread, s.Type, stack);
            StacksOf(_allStacks, s.Type).Add(stack);
            Sampled++;
        }
    }

    private void Count(object? target, string type)
    {
        if (target is null) return;
        var counts = TallyOf(target).Counts;
        counts[type] = counts.GetValueOrDefault(type) + 1;
    }

    private void Sample(object? target, string type, int stack)
    {
        if (target is not null) StacksOf(TallyOf(target).Stacks, type).Add(stack);
    }

    private Tally TallyOf(object target)
    {
        if (!_tallies.TryGetValue(target, out var tally)) _tallies[target] = tally = new Tally();
        return tally;
    }

    private static List<int> StacksOf(Dictionary<string, List<int>> byType, string type)
    {
        if (!byType.TryGetValue(type, out var list)) byType[type] = list = [];
        return list;
    }

    /// <summary>
    /// The runs whose throws were recorded one event each (in the stackless file, or with a stack in a window) while
    /// the file stopped before the throws did: their times hold those events' cost, the later runs' do not.
    /// </summary>
    public IReadOnlyList<RunDraft> RunsWithThrowEvents(IReadOnlyList<RunDraft> runs) =>
        !files.StoppedEarly ? [] : [.. runs.Where(r => _tallies.TryGetValue(r, out var t) && (t.Counts.Count > 0 || t.Stacks.Count > 0))];

    /// <summary>Throws the process counted in runs (RunStop version 2) beyond the file's: counted from the process.</summary>
    public long ToppedUp { get; private set; }

    /// <summary>
    /// Counts every run's and thread's throws into <paramref name="exceptions"/>, by site, once stacks are named:
    /// <paramref name="siteOf"/> names a sampled stack's site (type, thrower, tag). A run whose own count (RunStop's,
    /// in-process) is above the file's gets the rest too (the session stops at a high throw rate: ExceptionSessions),
    /// shared among the sites sampled in that run, or in the whole trace, by type and site.
    /// </summary>
    public void CountInto(ExceptionCollector exceptions, Func<string, int, ExceptionSite> siteOf, IEnumerable<RunDraft>? runs = null)
    {
        foreach (var run in runs ?? [])
        {
            long counted = 0;
            if (_tallies.TryGetValue(run, out var own))
                foreach (var n in own.Counts.Values) counted += n;
            if (run.InProcessExceptions is not { } all || all <= counted) continue;
            var sampled = own?.Stacks.Count > 0 ? own.Stacks : _allStacks;
            var sites = new List<ExceptionSite>();
            foreach (var (type, stacks) in sampled) sites.AddRange(SitesOf(siteOf, type, stacks));
            foreach (var (site, n) in Shares(all - counted, sites, own?.Counts.Keys.FirstOrDefault() ?? UnknownType))
                exceptions.Thrown(run, null, site, n);
            ToppedUp += all - counted;
        }
        foreach (var (target, tally) in _tallies)
            foreach (var (type, count) in tally.Counts)
            {
                var stacks = tally.Stacks.GetValueOrDefault(type) is { Count: > 0 } own ? own : _allStacks.GetValueOrDefault(type) ?? [];
                foreach (var (site, n) in Shares(count, SitesOf(siteOf, type, stacks), type))
                {
                    if (target is RunDraft run) exceptions.Thrown(run, null, site, n);
                    else exceptions.Thrown(null, (ThreadDraft)target, site, n);
                }
            }
    }

    // Loops here and in Shares, not LINQ over stack ids and (site, share) tuples: that ran as tier-0 JIT code in the
    // ReadyToRun build.
    private static List<ExceptionSite> SitesOf(Func<string, int, ExceptionSite> siteOf, string type, List<int> stacks)
    {
        var sites = new List<ExceptionSite>(stacks.Count);
        foreach (var stack in stacks) sites.Add(siteOf(type, stack));
        return sites;
    }

    /// <summary>The type of throws counted with neither an event nor a sampled stack of their run or trace.</summary>
    public const string UnknownType = "?";

    /// <summary>
    /// <paramref name="count"/> throws shared among the sampled sites in proportion to their samples (largest
    /// remainder, ties to the site sampled first), so the shares add up to the count. No sample: one unknown site.
    /// </summary>
    internal static IEnumerable<(ExceptionSite Site, int Count)> Shares(long count, IReadOnlyList<ExceptionSite> sampled, string type)
    {
        if (sampled.Count == 0) return [(new ExceptionSite(type, CodeSite.UnknownFrame), (int)count)];
        var bySite = new Collections.KeyedSums<ExceptionSite>();
        foreach (var site in sampled) bySite.Add(site, 1);
        var order = bySite.Keys;
        var exact = new double[order.Count];
        var whole = new long[order.Count];
        var indices = new int[order.Count];
        var left = count;
        for (var i = 0; i < order.Count; i++)
        {
            exact[i] = count * bySite[order[i]] / sampled.Count;
            whole[i] = (long)Math.Floor(exact[i]);
            left -= whole[i];
            indices[i] = i;
        }
        // The largest remainders get one more each, ties to the site sampled first.
        var byRemainder = Collections.LargestFirst.Of(indices, i => exact[i] - whole[i]);
        for (var k = 0; k < byRemainder.Count && k < (int)left; k++) whole[byRemainder[k]]++;
        var shares = new List<(ExceptionSite Site, int Count)>(order.Count);
        for (var i = 0; i < order.Count; i++)
            if (whole[i] > 0) shares.Add((order[i], (int)whole[i]));
        return shares;
    }
}
