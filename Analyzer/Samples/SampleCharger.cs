using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>
/// The one place where CPU samples become figures, whatever their source: each sample is given to the run whose
/// window holds it (the worker, or another thread while it runs a measured call; never the marker) and to its thread
/// over the whole trace, weighed, tagged on its whole stack, tiered, and kept for hot methods and call trees. Where a
/// more exact total is known (a thread's on-CPU time from its context switches), every weight of that run or thread
/// is scaled to it before anything is added up, so the tables, tags, tiers, hot methods and call trees all sum to
/// the same number.
/// </summary>
internal sealed class SampleCharger(SampleStream stream, StackTagMatcher? matcher, GcPauses pauses)
{
    // By the frames array's instance: a source hands out one array per distinct stack (per run only where it
    // repaired a frame), so a run's samples and the same samples over the whole trace share one classification.
    // The runs' cache; the threads' charge, beside it on another core, has its own (NewTagCache).
    private readonly Dictionary<(StackFrame[] Frames, NativeWork Why), string> _tags = NewTagCache();
    private readonly Dictionary<int, string?> _serializerOfStack = [];

    /// <summary>On-CPU time a run or thread really had, when a source knows it better than samples can (null: keep the samples' total).</summary>
    public Func<RunDraft, double?>? PreciseRunMs { get; init; }
    /// <summary>The same for threads over the whole trace, given each one's first and last sample; asked once, for all of them (one walk over the switches).</summary>
    public Func<IReadOnlyList<(int ThreadId, double FirstMs, double LastMs)>, double?[]>? PreciseThreadsMs { get; init; }

    /// <summary>Each thread's JIT and type load spans from the runtime's events: what its native runtime samples were doing.</summary>
    public RuntimeWork? Work { get; init; }

    /// <summary>Keep each charged sample for the call trees (<see cref="SampleCharges.Ledger"/>); false: the figures only.</summary>
    public bool KeepLedger { get; init; } = true;

    /// <remarks>
    /// The runs and the threads are charged side by side (2 cores: the threads took a fifth of the charge, which the
    /// analysis waited for). They share only what is read-only by then: the samples, the pauses, the runtime's work,
    /// the stacks (every sample's stack is named first, with no run, so the threads' side only reads names already
    /// made: <see cref="ISampleStacks.Frames"/>) and the thread-safe tag matcher; each side keeps its own tag cache
    /// and its own half of <see cref="SampleCharges"/>. Each side adds in sample order as before, so every sum is the
    /// same to the bit. Nothing is kept per sample (but the ledger, when asked for): each side reads the samples
    /// twice, once for the totals its scale needs and once to charge, finding each sample's run again the same way.
    /// </remarks>
    public SampleCharges Charge(IReadOnlyList<RunDraft> allRuns)
    {
        var runs = allRuns.Where(r => r.EndMs > r.StartMs).OrderBy(r => r.StartMs).ToList();
        var charges = new SampleCharges(stream.Kind);
        NameEveryStack();
        // The per-thread ledger draws the call trees of a trace without runs only: elsewhere it would be a copy of every sample for nothing.
        var keepThreadLedger = KeepLedger && runs.Count == 0;
        Beside.Join(Task.Run(() => ChargeThreads(charges, keepThreadLedger)), () =>
        {
            Total(runs, charges);
            ChargeRuns(runs, charges);
        });
        return charges;
    }

    /// <summary>Each sample's frames as its thread had them (no run's repair), named before the two sides read them.</summary>
    private void NameEveryStack()
    {
        var samples = stream.Samples;
        for (var i = 0; i < samples.Count; i++) stream.Stacks.Frames(samples[i].StackId, null);
    }

    /// <summary>
    /// The samples of the runs in time order, each with the index of its run in window order. Read twice, for the
    /// totals and for the charge: the same samples in the same order both times.
    /// </summary>
    private IEnumerable<(CpuSample Sample, int Run)> InRuns(List<RunDraft> runs)
    {
        var next = 0;
        var samples = stream.Samples;
        for (var i = 0; i < samples.Count; i++)
        {
            var s = samples[i];
            while (next < runs.Count && runs[next].EndMs <= s.TimeMs) next++;
            if (next == runs.Count || s.TimeMs < runs[next].StartMs || !Belongs(s, runs[next])) continue;
            yield return (s, next);
        }
    }

    /// <summary>First read: each run's raw weight, for the scale to its precise total.</summary>
    private void Total(List<RunDraft> runs, SampleCharges charges)
    {
        foreach (var (s, index) in InRuns(runs))
        {
            var run = runs[index];
            var (weight, gc) = Weigh(s, run.StartMs);
            charges.Run(run).RawMs += weight + gc;
        }
    }

    /// <summary>The run's worker; another thread only while it runs a measured call (--threads); never the marker.</summary>
    private bool Belongs(CpuSample s, RunDraft run)
    {
        if (s.ThreadId == run.MarkerThreadId) return false;
        if (run.WorkerThreadId == 0 || s.ThreadId == run.WorkerThreadId) return true;
        return stream.Stacks.IsMeasuredWork(s.StackId);
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

    private void ChargeRuns(List<RunDraft> runs, SampleCharges charges)
    {
        var factors = new Dictionary<RunDraft, double>(ReferenceEqualityComparer.Instance);
        foreach (var (s, index) in InRuns(runs))
        {
            var run = runs[index];
            if (!factors.TryGetValue(run, out var factor))
            {
                var raw = charges.Run(run).RawMs;
                factors[run] = factor = PreciseRunMs?.Invoke(run) is { } precise && raw > 0 ? precise / raw : 1.0;
            }
            var (weightMs, gcPauseMs) = Weigh(s, run.StartMs);
            var account = charges.Run(run);
            account.Samples++;
            if (stream.Stacks.LeafIsGcPoll(s.StackId)) account.GcPollLeafSamples++;
            var unnamed = s.StackId >= 0 && stream.Stacks.LeafUnnamed(s.StackId);
            if (unnamed) charges.UnnamedLeafRunSamples++;
            if (gcPauseMs > 0)
            {
                // The pause came first (the thread was stopped), then the sampled stack ran for the rest of the gap.
                var gcMs = gcPauseMs * factor;
                account.Add(StackTagMatcher.Gc, gcMs);
                if (KeepLedger) charges.Ledger.Add(new ChargedSample<RunDraft>(run, s.ThreadId, s.TimeMs - weightMs - gcPauseMs, [], gcMs, InGc: true, Pause: true));
            }
            var weight = weightMs * factor;
            var frames = stream.Stacks.Frames(s.StackId, run.Key);
            var why = NativeExplanation.Of(s.InGc, Work, s.ThreadId, s.TimeMs, frames);
            account.Add(Tag(why, frames), weight);
            if (stream.Stacks.Tier(s.StackId) is { } tier) account.TierMs[tier] = account.TierMs.GetValueOrDefault(tier) + weight;
            else account.NoTierMs += weight;
            if (unnamed) account.UnnamedLeafMs += weight;
            if (unnamed && why == NativeWork.None && !NativeExplanation.IsJitModule(frames[0])) account.UnexplainedLeafMs += weight;
            charges.HotMethodsOf(run).Add(frames, weight, stream.Stacks.LeafIsGcPoll(s.StackId), why);
            if (KeepLedger) charges.Ledger.Add(new ChargedSample<RunDraft>(run, s.ThreadId, s.TimeMs, frames, weight, s.InGc, Pause: false));
            if (run.Key.Serializer == Harness.StackTagRunNames.Unnamed) Vote(charges, run, s.StackId, frames, weight);
        }
    }

    /// <summary>
    /// The whole trace, thread by thread: every sample on its own thread, weighed over its whole gap with GC pauses
    /// taken out (they are not the thread's work unless the sampler saw it working in one), tagged as in runs.
    /// </summary>
    private void ChargeThreads(SampleCharges charges, bool keepLedger)
    {
        var tags = NewTagCache();
        var raw = new Dictionary<int, (double Ms, double FirstMs, double LastMs)>();
        for (var i = 0; i < stream.Samples.Count; i++)
        {
            var s = stream.Samples[i];
            var (weight, _) = Weigh(s, double.NegativeInfinity);
            raw[s.ThreadId] = raw.TryGetValue(s.ThreadId, out var r) ? (r.Ms + weight, r.FirstMs, s.TimeMs) : (weight, s.TimeMs, s.TimeMs);
        }
        var threads = raw.Select(kv => (kv.Key, kv.Value.FirstMs, kv.Value.LastMs)).ToList();
        var precise = PreciseThreadsMs?.Invoke(threads);
        var factors = new Dictionary<int, double>(threads.Count);
        for (var t = 0; t < threads.Count; t++)
        {
            var ms = raw[threads[t].Key].Ms;
            factors[threads[t].Key] = precise?[t] is { } p && ms > 0 ? p / ms : 1.0;
        }
        for (var i = 0; i < stream.Samples.Count; i++)
        {
            var s = stream.Samples[i];
            var weight = Weigh(s, double.NegativeInfinity).WeightMs * factors[s.ThreadId];
            var account = charges.Thread(s.ThreadId);
            account.Samples++;
            var frames = stream.Stacks.Frames(s.StackId, null);
            account.Add(Tag(tags, NativeExplanation.Of(s.InGc, Work, s.ThreadId, s.TimeMs, frames), frames), weight);
            if (keepLedger) charges.ThreadLedger.Add(new ChargedSample<RunDraft>(null, s.ThreadId, s.TimeMs, frames, weight, s.InGc, Pause: false));
        }
    }

    /// <summary>
    /// The sample's tag on its whole stack, with what the trace says its native runtime code was doing in front
    /// (<see cref="NativeExplanation"/>), classified like any frame.
    /// </summary>
    private string Tag(NativeWork why, StackFrame[] frames) => Tag(_tags, why, frames);

    private string Tag(Dictionary<(StackFrame[] Frames, NativeWork Why), string> tags, NativeWork why, StackFrame[] frames)
    {
        if (matcher is null) return why == NativeWork.GcPause ? StackTagMatcher.Gc : StackTagMatcher.Other;
        var key = (frames, why);
        if (tags.TryGetValue(key, out var tag)) return tag;
        tag = matcher.Classify(NativeExplanation.FrameOf(why) is { } said ? [said, .. frames] : frames);
        tags[key] = tag;
        return tag;
    }

    private static Dictionary<(StackFrame[] Frames, NativeWork Why), string> NewTagCache() => new(SameFrames<NativeWork>.Instance);

    /// <summary>Runs found without names (marker waits alone): each sample votes for the serializer on its stack (StackTagRunNames).</summary>
    private void Vote(SampleCharges charges, RunDraft run, int stack, StackFrame[] frames, double weight)
    {
        if (matcher is null || stack < 0) return;
        if (!_serializerOfStack.TryGetValue(stack, out var serializer))
            _serializerOfStack[stack] = serializer = Harness.StackTagRunNames.SerializerOf(frames, matcher);
        if (serializer is null) return;
        if (!charges.NameVotes.TryGetValue(run, out var votes)) charges.NameVotes[run] = votes = new(StringComparer.Ordinal);
        votes[serializer] = votes.GetValueOrDefault(serializer) + weight;
    }
}
