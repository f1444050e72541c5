using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>What one source's samples came to, per run and per thread, before it is written into the analysis.</summary>
internal sealed class SampleCharges(CpuSourceKind kind)
{
    private readonly Dictionary<RunDraft, CpuAccount> _runs = new(ReferenceEqualityComparer.Instance);
    private readonly Dictionary<RunDraft, HotMethodTable> _hot = new(ReferenceEqualityComparer.Instance);
    // By instance: frames are made once per code address and recur in every sample (StackTags.SameStrings).
    private readonly MethodNames _methodNames = new();
    // The threads' side of the charge runs beside the runs' side: its own method numbers.
    private readonly MethodNames _threadMethodNames = new();
    private readonly Dictionary<int, HotMethodTable> _threadHot = [];

    public CpuSourceKind Kind { get; } = kind;
    public Dictionary<int, CpuAccount> Threads { get; } = [];
    /// <summary>Every sample charged to a run, with its frames and final weight: the report's call trees.</summary>
    public List<ChargedSample<RunDraft>> Ledger { get; } = [];
    /// <summary>Every sample on its thread (the whole-trace call trees of a trace without runs).</summary>
    public List<ChargedSample<RunDraft>> ThreadLedger { get; } = [];
    public Dictionary<RunDraft, Dictionary<string, double>> NameVotes { get; } = new(ReferenceEqualityComparer.Instance);
    public long UnnamedLeafRunSamples { get; set; }

    public CpuAccount Run(RunDraft run)
    {
        if (!_runs.TryGetValue(run, out var a)) _runs[run] = a = new CpuAccount();
        return a;
    }

    public CpuAccount Thread(int threadId)
    {
        if (!Threads.TryGetValue(threadId, out var a)) Threads[threadId] = a = new CpuAccount();
        return a;
    }

    public HotMethodTable HotMethodsOf(RunDraft run)
    {
        if (!_hot.TryGetValue(run, out var t)) _hot[run] = t = new HotMethodTable(_methodNames);
        return t;
    }

    public CpuAccount? Of(RunDraft run) => _runs.GetValueOrDefault(run);

    /// <summary>A thread's hot methods over the whole trace (a trace without runs, for --top).</summary>
    public HotMethodTable HotMethodsOfThread(int threadId)
    {
        if (!_threadHot.TryGetValue(threadId, out var t)) _threadHot[threadId] = t = new HotMethodTable(_threadMethodNames);
        return t;
    }

    /// <summary>A thread's CPU by module and namespace over the whole trace (a trace without runs).</summary>
    public Dictionary<int, LibraryTable> ThreadLibraries { get; } = [];

    /// <summary>Every thread's hot methods added up: method name -> its row; null when none were kept.</summary>
    public Dictionary<string, HotMethod>? WholeTraceHotMethods()
    {
        if (_threadHot.Count == 0) return null;
        var sums = new HotMethodSums();
        foreach (var table in _threadHot.Values) table.AddTo(sums);
        return sums.Rows();
    }

    /// <summary>Every thread's CPU by library added up: (modules, namespaces), most inclusive time first.</summary>
    public (IReadOnlyList<LibraryCpu> Modules, IReadOnlyList<LibraryCpu> Namespaces) WholeTraceLibraries()
    {
        var modules = new Dictionary<string, (double Inclusive, double Exclusive)>(StringComparer.Ordinal);
        var namespaces = new Dictionary<string, (double Inclusive, double Exclusive)>(StringComparer.Ordinal);
        foreach (var table in ThreadLibraries.Values) table.AddTo(modules, namespaces);
        return (LibraryTable.Rows(modules), LibraryTable.Rows(namespaces));
    }

    /// <summary>Per (serializer, operation, N) over the given runs: their CPU by tag and site, summed.</summary>
    public Dictionary<(string Serializer, string Operation, int Objects), IReadOnlyDictionary<TagSite, double>> TagSites(IEnumerable<RunDraft> runs)
    {
        var sums = new Dictionary<(string, string, int), Dictionary<TagSite, double>>();
        foreach (var run in runs)
        {
            if (Of(run) is not { } account) continue;
            var key = (run.Key.Serializer, run.Key.Operation, run.Key.Objects);
            if (!sums.TryGetValue(key, out var sum)) sums[key] = sum = [];
            foreach (var (site, ms) in account.Sites()) sum[site] = sum.GetValueOrDefault(site) + ms;
        }
        return sums.ToDictionary(s => s.Key, s => (IReadOnlyDictionary<TagSite, double>)s.Value);
    }

    /// <summary>Per (serializer, operation, N) over the given runs, keyed as the per-operation tables are: method name -> its row.</summary>
    public Dictionary<(string Serializer, string Operation, int Objects), Dictionary<string, HotMethod>> HotMethods(IEnumerable<RunDraft> runs)
    {
        var sums = new Dictionary<(string, string, int), HotMethodSums>();
        foreach (var run in runs)
        {
            if (!_hot.TryGetValue(run, out var table)) continue;
            var key = (run.Key.Serializer, run.Key.Operation, run.Key.Objects);
            if (!sums.TryGetValue(key, out var sum)) sums[key] = sum = new HotMethodSums();
            table.AddTo(sum);
        }
        return sums.ToDictionary(s => s.Key, s => s.Value.Rows());
    }
}

/// <summary>CPU charged to one run or thread: total, by stack tag, by code tier.</summary>
internal sealed class CpuAccount
{
    /// <summary>The samples' total before any scaling to a precise figure.</summary>
    public double RawMs { get; set; }
    // By the site's instance (the charge makes one per distinct site), scaled when read: a scale touches no key.
    private readonly Dictionary<TagSite, double> _sites = new(ReferenceEqualityComparer.Instance);
    private double _sitesFactor = 1.0;

    /// <summary>A run's CPU by tag and by whose time it was (<see cref="TagSite"/>): the verdicts' causes name these.</summary>
    public IEnumerable<KeyValuePair<TagSite, double>> Sites()
    {
        foreach (var (site, ms) in _sites) yield return KeyValuePair.Create(site, ms * _sitesFactor);
    }

    public void AddSite(TagSite site, double ms) => System.Runtime.InteropServices.CollectionsMarshal.GetValueRefOrAddDefault(_sites, site, out _) += ms;
    public double CpuMs { get; private set; }
    public int Samples { get; set; }
    public int GcPollLeafSamples { get; set; }
    public Dictionary<string, double> Tags { get; } = new(StringComparer.Ordinal);
    public Dictionary<CodeTier, double> TierMs { get; } = [];
    public double NoTierMs { get; set; }
    /// <summary>CPU whose innermost frame has no name (stripped native code, stubs): what the tags cannot say more of.</summary>
    public double UnnamedLeafMs { get; set; }
    /// <summary>The part of <see cref="UnnamedLeafMs"/> the trace's events cannot explain either (no GC pause, JIT or type load span, not a stub, not the JIT's module).</summary>
    public double UnexplainedLeafMs { get; set; }

    public void Add(string tag, double ms)
    {
        CpuMs += ms;
        Tags[tag] = Tags.GetValueOrDefault(tag) + ms;
    }

    /// <summary>Every sum but <see cref="RawMs"/> times <paramref name="factor"/>: the samples' split scaled to a precise total.</summary>
    public void Scale(double factor)
    {
        CpuMs *= factor;
        foreach (var tag in Tags.Keys.ToList()) Tags[tag] *= factor;
        // A second scale applies the first to the figures, as each scale always did.
        if (_sitesFactor != 1.0)
            foreach (var site in _sites.Keys.ToList()) _sites[site] *= _sitesFactor;
        _sitesFactor = factor;
        foreach (var tier in TierMs.Keys.ToList()) TierMs[tier] *= factor;
        NoTierMs *= factor;
        UnnamedLeafMs *= factor;
        UnexplainedLeafMs *= factor;
    }
}
