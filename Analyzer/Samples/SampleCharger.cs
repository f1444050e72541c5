using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Stacks;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>
/// The one place where CPU samples become figures, whatever their source: each sample is given to the run whose
/// window holds it (the worker, or another thread while it runs a measured call; never the marker) and to its thread
/// over the whole trace, weighed, tagged on its whole stack, tiered, and kept for hot methods and call trees. Where a
/// more exact total is known (a thread's on-CPU time from its context switches), every sum of that run or thread
/// (its tags, tiers, hot methods and ledger entries) is scaled to it once every sample is in, so the tables, tags,
/// tiers, hot methods and call trees all sum to the same number.
/// </summary>
internal sealed class SampleCharger(SampleStream stream, StackTagMatcher? matcher, GcPauses pauses)
{
    // By the frames array's instance: a source hands out one array per distinct stack (per run only where it
    // repaired a frame), so a run's samples and the same samples over the whole trace share one classification.
    // The runs' cache; the threads' charge, beside it on another core, has its own (TagCache).
    private readonly TagCache<string> _tags = new();
    // Each named stack's tag with nothing said in front, made once while a chunk's stacks are named (before the two
    // sides start) and only read by them: each side classified every stack itself, 18,121 stacks on the README's
    // folder, 12,634 since.
    private readonly Dictionary<StackFrame[], string> _plainTags = new(ReferenceEqualityComparer.Instance);
    // The runs' sites by stack and work, each value one instance (_internedSites): a run's table of sites compares them by reference.
    private readonly TagCache<TagSite> _runSites = new();
    private readonly Dictionary<TagSite, TagSite> _internedSites = [];
    // By the frames array's instance too: stack ids are a chunk's own when a source comes in chunks.
    private readonly Dictionary<StackFrame[], string?> _serializerOfStack = new(ReferenceEqualityComparer.Instance);
    // By the frames array's instance too: whose time a stack is (the verdicts' sites), for the runs' side only.
    private readonly Dictionary<StackFrame[], StackSite> _sites = new(ReferenceEqualityComparer.Instance);
    // By the frame's strings (SameStrings: a namer hands out one frame per code address): its site, made once.
    private readonly Dictionary<StackFrame, CodeSite> _siteOfFrame = new(SameStrings.Instance);

    private CpuSourceKind Kind => stream.Kind;

    /// <summary>On-CPU time a run or thread really had, when a source knows it better than samples can (null: keep the samples' total).</summary>
    public Func<RunDraft, double?>? PreciseRunMs { get; init; }
    /// <summary>The same for threads over the whole trace, given each one's first and last sample; asked once, for all of them (one walk over the switches).</summary>
    public Func<IReadOnlyList<(int ThreadId, double FirstMs, double LastMs)>, double?[]>? PreciseThreadsMs { get; init; }

    /// <summary>Each thread's JIT and type load spans from the runtime's events: what its native runtime samples were doing.</summary>
    public RuntimeWork? Work { get; init; }

    /// <summary>Where sampled throws were thrown from, by return address: native samples called from there are exception work.</summary>
    public ThrowCallSites? ThrowSites { get; init; }

    /// <summary>Keep each charged sample for the call trees (<see cref="SampleCharges.Ledger"/>); false: the figures only.</summary>
    public bool KeepLedger { get; init; } = true;

    /// <summary>Keep every thread's samples too (<see cref="SampleCharges.ThreadLedger"/>), runs or not: the time line of --firefox.</summary>
    public bool KeepThreadLedger { get; init; }

    /// <summary>In a trace without runs, keep each thread's hot methods too (--top): the whole trace's table.</summary>
    public bool WholeTraceHotMethods { get; init; }

    /// <summary>The stream's samples, charged whole: <see cref="Begin"/>, its one chunk, <see cref="Charging.Finish"/>.</summary>
    public SampleCharges Charge(IReadOnlyList<RunDraft> allRuns)
    {
        var charging = Begin(allRuns);
        charging.Add(stream);
        return charging.Finish();
    }

    /// <summary>
    /// A charge fed chunk by chunk (a long kernel session is read in chunks, each charged and dropped: peak memory
    /// does not grow with the trace). Chunks are the same source's samples, each in time order and each after the
    /// last; their stack ids are their own, their named frames arrays shared.
    /// </summary>
    public Charging Begin(IReadOnlyList<RunDraft> allRuns) => new(this, allRuns);

    /// <remarks>
    /// The runs and the threads are charged side by side (2 cores: the threads took a fifth of the charge, which the
    /// analysis waited for). They share only what is read-only by then: the samples, the pauses, the runtime's work,
    /// the stacks (every sample's stack is named first, with no run, so the threads' side only reads names already
    /// made: <see cref="ISampleStacks.Frames"/>, and tagged), and the thread-safe tag matcher; each side keeps its
    /// own tag cache (for what is said in front of a stack) and its own half of <see cref="SampleCharges"/>. Each side
    /// adds in sample order. Nothing is kept per sample (but the ledger, when asked for): a sample is added at its raw
    /// weight, and where a precise total is known (<see cref="PreciseRunMs"/>, <see cref="PreciseThreadsMs"/>) each
    /// run's and thread's sums are scaled to it once every sample is in (<see cref="Finish"/>), so the tables, tags,
    /// tiers, hot methods and call trees still add up to the precise figure.
    /// </remarks>
    internal sealed class Charging
    {
        private readonly SampleCharger _charger;
        private readonly List<RunDraft> _runs;
        private readonly SampleCharges _charges;
        private readonly bool _keepThreadLedger;
        private readonly bool _wholeTrace;
        private int _next; // the first run whose window has not ended before the last sample charged
        private readonly TagCache<string> _threadTags = new();
        private readonly Dictionary<int, (double Ms, double FirstMs, double LastMs)> _threadRaw = [];
        private bool _finished;

        public Charging(SampleCharger charger, IReadOnlyList<RunDraft> allRuns)
        {
            _charger = charger;
            _runs = allRuns.Where(r => r.EndMs > r.StartMs).OrderBy(r => r.StartMs).ToList();
            _charges = new SampleCharges(charger.Kind);
            // The per-thread ledger draws the call trees of a trace without runs only: elsewhere it would be a copy of every sample for nothing.
            _keepThreadLedger = charger.KeepLedger && (_runs.Count == 0 || charger.KeepThreadLedger);
            _wholeTrace = _runs.Count == 0;
        }

        /// <summary>One chunk of samples, after the last one.</summary>
        public void Add(SampleStream chunk)
        {
            if (_finished) throw new InvalidOperationException("the charge is finished");
            _charger.NameEveryStack(chunk);
            Beside.Join(Task.Run(() => _charger.ChargeThreads(chunk, _charges, _threadTags, _threadRaw, _keepThreadLedger, _wholeTrace)),
                () => _next = _charger.ChargeRuns(chunk, _runs, _next, _charges));
        }

        /// <summary>Every sample is in: each run and thread scaled to its precise total where one is known.</summary>
        public SampleCharges Finish()
        {
            if (!_finished)
            {
                _finished = true;
                _charger.ScaleRuns(_runs, _charges);
                _charger.ScaleThreads(_charges, _threadRaw);
            }
            return _charges;
        }

    }

    /// <summary>
    /// Each sample's frames as its thread had them (no run's repair), named and tagged (with nothing said in front)
    /// before the two sides read them.
    /// </summary>
    private void NameEveryStack(SampleStream chunk)
    {
        var samples = chunk.Samples;
        for (var i = 0; i < samples.Count; i++)
        {
            var frames = chunk.Stacks.Frames(samples[i].StackId, null);
            if (matcher is not null && !_plainTags.ContainsKey(frames)) _plainTags[frames] = matcher.Classify(frames);
        }
    }

    /// <summary>
    /// The chunk's samples that fall in runs, in time order, each with the index of its run in window order, from
    /// run <paramref name="next"/> on (runs before it ended before an earlier chunk's last sample).
    /// </summary>
    private IEnumerable<(CpuSample Sample, int Run)> InRuns(SampleStream chunk, List<RunDraft> runs, StrongBox<int> next)
    {
        var samples = chunk.Samples;
        for (var i = 0; i < samples.Count; i++)
        {
            var s = samples[i];
            while (next.Value < runs.Count && runs[next.Value].EndMs <= s.TimeMs) next.Value++;
            if (next.Value == runs.Count || s.TimeMs < runs[next.Value].StartMs || !Belongs(chunk, s, runs[next.Value])) continue;
            yield return (s, next.Value);
        }
    }

    /// <summary>
    /// The run's worker and its crew (RunThread events, --threads), whatever they run inside the window; another thread
    /// only while it runs a measured call; never the marker.
    /// </summary>
    private static bool Belongs(SampleStream chunk, CpuSample s, RunDraft run)
    {
        if (s.ThreadId == run.MarkerThreadId) return false;
        if (run.WorkerThreadId == 0 || run.IsRunThread(s.ThreadId)) return true;
        return chunk.Stacks.IsMeasuredWork(s.StackId);
    }

    /// <summary>
    /// A timer sampler's sample is one period. A gap sampler's stands for the time since the thread's previous sample
    /// (PerfView's rule), from <paramref name="fromMs"/> at the earliest; no samples are taken while the runtime is
    /// suspended for a GC, so that part of the gap is the GC's, not this stack's.
    /// </summary>
    private (double WeightMs, double GcPauseMs) Weigh(CpuSample s, double fromMs)
    {
        if (!stream.GapWeighted) return (stream.PeriodMs, 0);
        var from = Math.Max(s.SinceMs, fromMs);
        var gc = pauses.Overlap(from, s.TimeMs);
        return (Math.Clamp(s.TimeMs - from - gc, 0, s.CapMs), gc);
    }

    /// <returns>The first run not yet over at the chunk's last sample, where the next chunk starts looking.</returns>
    private int ChargeRuns(SampleStream chunk, List<RunDraft> runs, int next, SampleCharges charges)
    {
        var at = new StrongBox<int>(next);
        foreach (var (s, index) in InRuns(chunk, runs, at))
        {
            var run = runs[index];
            var (weightMs, gcPauseMs) = Weigh(s, run.StartMs);
            var account = charges.Run(run);
            account.RawMs += weightMs + gcPauseMs;
            account.Samples++;
            if (chunk.Stacks.LeafIsGcPoll(s.StackId)) account.GcPollLeafSamples++;
            var unnamed = s.StackId >= 0 && chunk.Stacks.LeafUnnamed(s.StackId);
            if (unnamed) charges.UnnamedLeafRunSamples++;
            if (gcPauseMs > 0)
            {
                // The pause came first (the thread was stopped), then the sampled stack ran for the rest of the gap.
                account.Add(StackTagMatcher.Gc, gcPauseMs);
                if (KeepLedger) charges.Ledger.Add(new ChargedSample<RunDraft>(run, s.ThreadId, s.TimeMs - weightMs - gcPauseMs, [], gcPauseMs, InGc: true, Pause: true) { Tag = StackTagMatcher.Gc });
            }
            var weight = weightMs;
            var frames = chunk.Stacks.Frames(s.StackId, run.Key);
            var why = NativeExplanation.Of(s.InGc, Work, s.ThreadId, s.TimeMs, frames, new(ThrowSites, chunk.Stacks, s.StackId));
            var site = RunSite(why, frames);
            var tag = site.Tag;
            account.Add(tag, weight);
            account.AddSite(site, weight);
            if (chunk.Stacks.Tier(s.StackId) is { } tier) account.TierMs[tier] = account.TierMs.GetValueOrDefault(tier) + weight;
            else account.NoTierMs += weight;
            if (unnamed) account.UnnamedLeafMs += weight;
            if (unnamed && why == NativeWork.None && !NativeExplanation.IsJitModule(frames[0])) account.UnexplainedLeafMs += weight;
            charges.HotMethodsOf(run).Add(frames, weight, chunk.Stacks.LeafIsGcPoll(s.StackId), why);
            if (KeepLedger) charges.Ledger.Add(new ChargedSample<RunDraft>(run, s.ThreadId, s.TimeMs, frames, weight, s.InGc, Pause: false) { Work = HotMethodTable.Said(why), Tag = tag });
            if (run.Key.Serializer == Harness.StackTagRunNames.Unnamed) Vote(charges, run, frames, weight);
        }
        return at.Value;
    }

    /// <summary>Each run scaled to its precise on-CPU time (<see cref="PreciseRunMs"/>), where known, from the samples' raw total.</summary>
    private void ScaleRuns(List<RunDraft> runs, SampleCharges charges)
    {
        if (PreciseRunMs is null) return;
        var factors = new Dictionary<RunDraft, double>(ReferenceEqualityComparer.Instance);
        foreach (var run in runs)
        {
            if (charges.Of(run) is not { } account || factors.ContainsKey(run)) continue;
            var factor = PreciseRunMs(run) is { } precise && account.RawMs > 0 ? precise / account.RawMs : 1.0;
            factors[run] = factor;
            if (factor == 1.0) continue;
            account.Scale(factor);
            charges.HotMethodsOf(run).Scale(factor);
            if (charges.NameVotes.TryGetValue(run, out var votes))
                foreach (var serializer in votes.Keys.ToList()) votes[serializer] *= factor;
        }
        ScaleLedger(charges.Ledger, e => e.Run is { } run ? factors.GetValueOrDefault(run, 1.0) : 1.0);
    }

    private static void ScaleLedger(List<ChargedSample<RunDraft>> ledger, Func<ChargedSample<RunDraft>, double> factorOf)
    {
        for (var i = 0; i < ledger.Count; i++)
        {
            var factor = factorOf(ledger[i]);
            if (factor != 1.0) ledger[i] = ledger[i] with { WeightMs = ledger[i].WeightMs * factor };
        }
    }

    /// <summary>
    /// The whole trace, thread by thread: every sample on its own thread, weighed over its whole gap with GC pauses
    /// taken out (they are not the thread's work unless the sampler saw it working in one), tagged as in runs.
    /// </summary>
    private void ChargeThreads(SampleStream chunk, SampleCharges charges, TagCache<string> tags,
        Dictionary<int, (double Ms, double FirstMs, double LastMs)> raw, bool keepLedger, bool wholeTrace)
    {
        for (var i = 0; i < chunk.Samples.Count; i++)
        {
            var s = chunk.Samples[i];
            var weight = Weigh(s, double.NegativeInfinity).WeightMs;
            raw[s.ThreadId] = raw.TryGetValue(s.ThreadId, out var r) ? (r.Ms + weight, r.FirstMs, s.TimeMs) : (weight, s.TimeMs, s.TimeMs);
            var account = charges.Thread(s.ThreadId);
            account.Samples++;
            var frames = chunk.Stacks.Frames(s.StackId, null);
            var why = NativeExplanation.Of(s.InGc, Work, s.ThreadId, s.TimeMs, frames, new(ThrowSites, chunk.Stacks, s.StackId));
            var tag = Tag(tags, why, frames);
            account.Add(tag, weight);
            if (wholeTrace)
            {
                // A trace without runs: the whole trace's libraries and hot methods, from the same weights as the threads' CPU.
                if (!charges.ThreadLibraries.TryGetValue(s.ThreadId, out var libraries)) charges.ThreadLibraries[s.ThreadId] = libraries = new LibraryTable();
                libraries.Add(frames, weight);
                if (WholeTraceHotMethods) charges.HotMethodsOfThread(s.ThreadId).Add(frames, weight, chunk.Stacks.LeafIsGcPoll(s.StackId), why);
            }
            if (keepLedger) charges.ThreadLedger.Add(new ChargedSample<RunDraft>(null, s.ThreadId, s.TimeMs, frames, weight, s.InGc, Pause: false) { Work = HotMethodTable.Said(why), Tag = tag });
        }
    }

    /// <summary>Each thread scaled to its precise on-CPU time over the whole trace (<see cref="PreciseThreadsMs"/>), where known.</summary>
    private void ScaleThreads(SampleCharges charges, Dictionary<int, (double Ms, double FirstMs, double LastMs)> raw)
    {
        if (PreciseThreadsMs is null) return;
        var threads = new List<(int Key, double FirstMs, double LastMs)>(raw.Count);
        foreach (var (id, r) in raw) threads.Add((id, r.FirstMs, r.LastMs));
        var precise = PreciseThreadsMs(threads);
        var factors = new Dictionary<int, double>(threads.Count);
        for (var t = 0; t < threads.Count; t++)
        {
            var ms = raw[threads[t].Key].Ms;
            var factor = precise[t] is { } p && ms > 0 ? p / ms : 1.0;
            factors[threads[t].Key] = factor;
            if (factor == 1.0) continue;
            charges.Thread(threads[t].Key).Scale(factor);
            if (charges.ThreadLibraries.TryGetValue(threads[t].Key, out var libraries)) libraries.Scale(factor);
            if (WholeTraceHotMethods && charges.ThreadLibraries.ContainsKey(threads[t].Key)) charges.HotMethodsOfThread(threads[t].Key).Scale(factor);
        }
        ScaleLedger(charges.ThreadLedger, e => factors.GetValueOrDefault(e.ThreadId, 1.0));
    }

    /// <summary>
    /// The sample's tag on its whole stack, with what the trace says its native runtime code was doing in front
    /// (<see cref="NativeExplanation"/>), classified like any frame.
    /// </summary>
    private string Tag(NativeWork why, StackFrame[] frames) => Tag(_tags, why, frames);

    private string Tag(TagCache<string> tags, NativeWork why, StackFrame[] frames)
    {
        if (matcher is null) return why == NativeWork.GcPause ? StackTagMatcher.Gc : StackTagMatcher.Other;
        if (why == NativeWork.None && _plainTags.TryGetValue(frames, out var plain)) return plain;
        var byFrames = tags.Of(why);
        if (byFrames.TryGetValue(frames, out var tag)) return tag;
        tag = matcher.Classify(NativeExplanation.FrameOf(why) is { } said ? [said, .. frames] : frames);
        byFrames[frames] = tag;
        return tag;
    }

    /// <summary>A run sample's tag and site, made once per stack and work; one instance per distinct site.</summary>
    private TagSite RunSite(NativeWork why, StackFrame[] frames)
    {
        var byFrames = _runSites.Of(why);
        if (byFrames.TryGetValue(frames, out var site)) return site;
        var (api, caller, outer) = Site(frames);
        site = new TagSite(Tag(why, frames), api, caller, outer);
        if (!_internedSites.TryGetValue(site, out var same)) _internedSites[site] = same = site;
        byFrames[frames] = same;
        return same;
    }

    /// <summary>The stack's caller, the API it called and the caller's caller (<see cref="StackTagMatcher.Site"/>), as sites without tags.</summary>
    private (CodeSite? Api, CodeSite? Caller, CodeSite? Outer) Site(StackFrame[] frames)
    {
        if (matcher is null) return (null, null, null);
        if (!_sites.TryGetValue(frames, out var known))
        {
            var (api, caller, outer) = matcher.Site(frames);
            _sites[frames] = known = new StackSite(SiteAt(frames, api), SiteAt(frames, caller), SiteAt(frames, outer));
        }
        return (known.Api, known.Caller, known.Outer);
    }

    /// <summary>
    /// The site of a frame, made once per frame (frame namers hand out one per code address): a site's names are then
    /// one string instance wherever the frame appears, so tables of sites compare them by reference first.
    /// </summary>
    private CodeSite? SiteAt(StackFrame[] frames, int i)
    {
        if (i < 0) return null;
        if (!_siteOfFrame.TryGetValue(frames[i], out var site)) _siteOfFrame[frames[i]] = site = CodeSite.At(frames[i]);
        return site;
    }

    /// <summary>A stack's sites, kept as an object: a table of objects by object runs the framework's precompiled code, one of tuples runs tier-0 JIT code in the ReadyToRun build.</summary>
    private sealed record StackSite(CodeSite? Api, CodeSite? Caller, CodeSite? Outer);

    /// <summary>
    /// Each stack's tag (or site), by what the runtime was doing at its leaf and then by the frames array's instance:
    /// one table per <see cref="NativeWork"/>, so each is a table of objects by object (the framework's precompiled
    /// code; a (frames, work) key ran tier-0 JIT code in the ReadyToRun build).
    /// </summary>
    private sealed class TagCache<T> where T : class
    {
        private readonly Dictionary<StackFrame[], T>?[] _byWork = new Dictionary<StackFrame[], T>?[byte.MaxValue + 1];

        public Dictionary<StackFrame[], T> Of(NativeWork why) => _byWork[(int)why] ??= new(ReferenceEqualityComparer.Instance);
    }

    /// <summary>Runs found without names (marker waits alone): each sample votes for the serializer on its stack (StackTagRunNames).</summary>
    private void Vote(SampleCharges charges, RunDraft run, StackFrame[] frames, double weight)
    {
        if (matcher is null || frames.Length == 0) return;
        if (!_serializerOfStack.TryGetValue(frames, out var serializer))
            _serializerOfStack[frames] = serializer = Harness.StackTagRunNames.SerializerOf(frames, matcher);
        if (serializer is null) return;
        if (!charges.NameVotes.TryGetValue(run, out var votes)) charges.NameVotes[run] = votes = new(StringComparer.Ordinal);
        votes[serializer] = votes.GetValueOrDefault(serializer) + weight;
    }
}
