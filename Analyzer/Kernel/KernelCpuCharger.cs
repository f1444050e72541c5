using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// Charges the kernel session's on-CPU samples to runs, replacing EventPipe's sampled columns (kept on the run as
/// <see cref="RunAnalysis.EventPipeCpu"/>): per run, the worker's samples inside the window (other threads only while
/// they run the benchmark's measured calls), each worth one sample period of CPU. A sample taken while the runtime
/// was stopped for a GC is GC work on that thread and goes to the GC tag whatever its (stripped, native) frames say,
/// so CPU ms compares with the thread CPU clock. Everything else is tagged on the whole merged stack, managed and
/// native frames alike.
/// </summary>
internal sealed class KernelCpuCharger(TraceAnalysis analysis, KernelTrace kernel, KernelFrameNamer namer, StackTagMatcher? matcher, PassTimeline timeline, AnalyzerOptions options)
{
    private static readonly string[] MeasuredFrames = [.. Common.MeasuredCallFrames.All];
    private readonly Dictionary<(int Stack, string Serializer, string Operation, bool InGc), string> _tagByStack = [];

    /// <summary>
    /// What the stripped libcoreclr frames of a sample taken during a GC pause would be called with symbols: the
    /// GC's own code. Classified like any frame, so a tag ranked above GC (a user's) still claims it, as in WPA.
    /// </summary>
    private static readonly StackFrame GcWork = new("libcoreclr.so", "WKS::gc_heap::garbage_collect");
    private readonly MeasuredCallRepair _repair = new(matcher?.File);
    private readonly Dictionary<int, bool> _measuredByStack = [];
    private readonly Dictionary<int, CodeTier?> _tierByStack = [];
    private readonly List<StackFrame> _frames = new(128);

    /// <summary>A measured run's sample, kept for the report's call trees and speedscope files (RunStackCollector).</summary>
    public readonly record struct RunSample(RunAnalysis Run, double TimeMs, int StackId, bool InGc, double WeightMs);

    public List<RunSample> MeasuredSamples { get; } = [];

    /// <summary>A trace without runs: every sample by thread (ThreadId, relative ms, stack, in a GC), for the whole-trace call trees.</summary>
    public List<(int ThreadId, double TimeMs, int StackId, bool InGc)> ThreadSamples { get; } = [];

    public double SamplePeriodMs => kernel.SamplePeriodMs;

    /// <summary>A thread sample's frames as tagged (leaf first, root natives left out); a copy.</summary>
    public List<StackFrame> FramesOf(int stackId) => [.. RunFrames(stackId, null)];

    public long ProcessSamples { get; private set; }
    public long UnnamedLeafSamples { get; private set; }

    public void Charge()
    {
        var runs = analysis.Runs.Where(r => r.EndMs > r.StartMs).OrderBy(r => r.StartMs).ToList();
        foreach (var run in analysis.Runs)
        {
            run.EventPipeCpu = new SampledCpu(run.CpuMs, run.Samples, new Dictionary<string, double>(run.Tags));
            run.CpuMs = 0;
            run.Samples = 0;
            run.Tags.Clear();
            run.TierMs.Clear();
            run.NoTierMs = 0;
        }
        if (options.CollectHotMethods) analysis.HotMethods.Clear();
        var pauses = timeline.GcPauses.OrderBy(p => p.StartMs).ToList();
        var weight = kernel.SamplePeriodMs;
        var next = 0;
        var pause = 0;
        foreach (var sample in kernel.Samples)
        {
            ProcessSamples++;
            if (sample.StackId >= 0 && UnnamedLeaf(sample.StackId)) UnnamedLeafSamples++;
            var t = timeline.Clock.ToRelativeMs(sample.TimeNs);
            while (next < runs.Count && runs[next].EndMs <= t) next++;
            if (next == runs.Count) continue;
            var run = runs[next];
            if (t < run.StartMs || !Belongs(sample, run)) continue;
            while (pause < pauses.Count && pauses[pause].EndMs <= t) pause++;
            var inGc = pause < pauses.Count && pauses[pause].StartMs <= t;
            run.CpuMs += weight;
            run.Samples++;
            var tag = Tag(sample.StackId, run, inGc);
            run.Tags[tag] = run.Tags.GetValueOrDefault(tag) + weight;
            if (TierOf(sample.StackId) is { } tier) run.TierMs[tier] = run.TierMs.GetValueOrDefault(tier) + weight;
            else run.NoTierMs += weight;
            if (options.CollectHotMethods && sample.StackId >= 0) AddHotMethods(run, sample.StackId, weight);
            if (!run.IsWarmup) MeasuredSamples.Add(new RunSample(run, t, sample.StackId, inGc, weight));
        }
    }

    /// <summary>
    /// The whole trace, thread by thread: every sample of the process on its thread, tagged on its whole stack (GC by
    /// time, as in runs); samples replace EventPipe's figures, and threads only the kernel saw (native ones) appear.
    /// </summary>
    public void ChargeThreads(List<ThreadProfile> threads, IReadOnlyDictionary<int, string> names)
    {
        var byId = threads.ToDictionary(t => t.ThreadId);
        foreach (var t in threads)
        {
            t.CpuMs = 0;
            t.Samples = 0;
            t.Tags.Clear();
            t.Name ??= names.GetValueOrDefault(t.ThreadId); // perf's comm: the name the thread gave itself
        }
        var pauses = timeline.GcPauses.OrderBy(p => p.StartMs).ToList();
        var pause = 0;
        var tagByStack = new Dictionary<(int, bool), string>();
        foreach (var sample in kernel.Samples)
        {
            if (!byId.TryGetValue(sample.ThreadId, out var t))
            {
                byId[sample.ThreadId] = t = new ThreadProfile { ThreadId = sample.ThreadId, Name = names.GetValueOrDefault(sample.ThreadId) };
                threads.Add(t);
            }
            var ms = timeline.Clock.ToRelativeMs(sample.TimeNs);
            while (pause < pauses.Count && pauses[pause].EndMs <= ms) pause++;
            var inGc = pause < pauses.Count && pauses[pause].StartMs <= ms;
            if (!tagByStack.TryGetValue((sample.StackId, inGc), out var tag))
            {
                var frames = RunFrames(sample.StackId, null);
                if (inGc) frames.Insert(0, GcWork);
                tagByStack[(sample.StackId, inGc)] = tag = matcher?.Classify(frames) ?? (inGc ? TraceAnalyzer.GcTag : StackTagMatcher.Other);
            }
            t.CpuMs += kernel.SamplePeriodMs;
            t.Samples++;
            if (analysis.Runs.Count == 0) ThreadSamples.Add((sample.ThreadId, ms, sample.StackId, inGc));
            t.Tags[tag] = t.Tags.GetValueOrDefault(tag) + kernel.SamplePeriodMs;
        }
        threads.Sort((a, b) => b.CpuMs.CompareTo(a.CpuMs));
    }

    /// <summary>The run's worker; another thread only while it runs a measured call (--threads); never the marker.</summary>
    private bool Belongs(KernelSample sample, RunAnalysis run)
    {
        if (!options.Includes(run.Key.Serializer) || sample.ThreadId == run.MarkerThreadId) return false;
        if (run.WorkerThreadId == 0 || sample.ThreadId == run.WorkerThreadId) return true;
        if (sample.StackId < 0) return false;
        if (_measuredByStack.TryGetValue(sample.StackId, out var measured)) return measured;
        measured = Frames(sample.StackId).Any(f => MeasuredFrames.Any(m => f.Method.Contains(m, StringComparison.Ordinal)));
        _measuredByStack[sample.StackId] = measured;
        return measured;
    }

    private string Tag(int stack, RunAnalysis run, bool inGc)
    {
        if (matcher is null) return inGc ? TraceAnalyzer.GcTag : StackTagMatcher.Other;
        var key = (stack, run.Key.Serializer, run.Key.Operation, inGc);
        if (_tagByStack.TryGetValue(key, out var tag)) return tag;
        var frames = stack < 0 ? [] : RunFrames(stack, run);
        if (inGc) frames.Insert(0, GcWork);
        tag = matcher.Classify(frames);
        _tagByStack[key] = tag;
        return tag;
    }

    /// <summary>The stack as the run's worker really had it: with the serializer frame frame-pointer unwinding lost.</summary>
    private List<StackFrame> RunFrames(int stack, RunAnalysis? run)
    {
        if (stack < 0) { _frames.Clear(); return _frames; }
        var frames = Frames(stack);
        if (run is not null && _repair.Repair(frames, run.Key.Serializer, run.Key.Operation)) RepairedStacks++;
        return frames;
    }

    public long RepairedStacks { get; private set; }

    /// <summary>A sample's frames as the tables saw them (leaf first, the serializer's lost frame restored); a copy.</summary>
    public List<StackFrame> FramesOf(RunSample sample) => [.. RunFrames(sample.StackId, sample.Run)];

    /// <summary>The tier of the innermost managed frame: the code running, or the managed code that called into native code.</summary>
    private CodeTier? TierOf(int stack)
    {
        if (stack < 0) return null;
        if (_tierByStack.TryGetValue(stack, out var tier)) return tier;
        tier = null;
        foreach (var id in kernel.Stacks[stack])
            if (namer.Name(id).Tier is { } t) { tier = t; break; }
        _tierByStack[stack] = tier;
        return tier;
    }

    private bool UnnamedLeaf(int stack) => kernel.Stacks[stack] is { Length: > 0 } s && namer.Name(s[0]).Frame.Method == StackResolver.Unresolved;

    /// <summary>
    /// Frames leaf first; the list is reused. Native frames rootward of the outermost managed frame (the host, the
    /// runtime's thread start: `dotnet`, libhostfxr, libcoreclr) are left out: they sit under every sample of a
    /// managed thread and would let a catch-all native tag outrank the code that ran. A stack with no managed frame
    /// (a runtime thread) keeps all of its frames.
    /// </summary>
    private List<StackFrame> Frames(int stack)
    {
        _frames.Clear();
        var ids = kernel.Stacks[stack];
        var outermostManaged = -1;
        for (var i = ids.Length - 1; i >= 0; i--)
            if (namer.IsManaged(ids[i])) { outermostManaged = i; break; }
        var count = outermostManaged < 0 ? ids.Length : outermostManaged + 1;
        for (var i = 0; i < count; i++) _frames.Add(namer.Name(ids[i]).Frame);
        return _frames;
    }

    private void AddHotMethods(RunAnalysis run, int stack, double weight)
    {
        var key = (run.Key.Serializer, run.Key.Operation);
        if (!analysis.HotMethods.TryGetValue(key, out var methods)) analysis.HotMethods[key] = methods = new(StringComparer.Ordinal);
        var frames = RunFrames(stack, run);
        var seen = new HashSet<string>(StringComparer.Ordinal);
        for (var i = 0; i < frames.Count; i++)
        {
            if (frames[i] is { Module: "?", Method: StackResolver.Unresolved }) continue; // the unwinder's end of the chain
            var name = StackResolver.Display(frames[i]);
            if (!seen.Add(name)) continue; // recursion counts once per sample
            var (ex, inc) = methods.GetValueOrDefault(name);
            methods[name] = (ex + (i == 0 ? weight : 0), inc + weight);
        }
    }
}
