using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using Microsoft.Diagnostics.Tracing.Stacks;

namespace EtwSerializerProfiler.Analyzer.CallTrees;

/// <summary>
/// The stacks for --html and --speedscope: the samples the analysis charged (<see cref="SampleLedger"/>), with the
/// weights the tables add up, gathered per serializer, operation and N (as the per-operation tables) into a TraceEvent stack source (written by
/// Export/SpeedscopeExporter) and a call tree (drawn in the HTML). No second pass over the trace: the call trees are
/// the tables' own samples, whatever the CPU source. Warm-up runs are left out, as in the tables; a trace without
/// runs gets its busiest threads instead.
/// </summary>
public static class RunStackCollector
{
    /// <summary>The pseudo-frame standing for time the runtime was suspended for a GC: no stack is sampled then.</summary>
    public const string GcFrame = "[GC pause: runtime suspended]";
    /// <summary>Kernel samples: the GC's own work on the sampled thread (libcoreclr is stripped, so its frames have no names).</summary>
    public const string GcWorkFrame = "[GC work on this thread]";

    /// <summary>The busiest threads of a trace without runs that get a call tree and a speedscope file.</summary>
    public const int WholeTraceThreads = 6;
    public const string WholeTraceOperation = "whole trace";
    /// <summary>The call tree of every thread of a trace without runs together: the process's, beside its busiest threads'.</summary>
    public const string AllThreads = "all threads";

    /// <param name="speedscopeDirectory">The --speedscope folder, if any: each profile with samples says which file there is its flame graph.</param>
    /// <param name="firefoxPath">The --firefox file, if any: the page links each case to it.</param>
    public static RunStacks Collect(TraceAnalysis analysis, IProgress<string>? progress = null, string? speedscopeDirectory = null, string? firefoxPath = null)
    {
        progress?.Report("collecting the stacks of the measured runs...");
        var collectors = new Dictionary<(string, string, int), Collector>();
        var ledger = analysis.Samples;
        if (ledger is not null)
        {
            var measured = analysis.Runs.Where(r => r.IsMeasured).ToHashSet(ReferenceEqualityComparer.Instance); // the runs the tables average: not warm-ups, not a harness's outliers
            foreach (var sample in ledger.RunSamples)
            {
                if (sample.Run is not { } run || !measured.Contains(run)) continue;
                Of(collectors, run.Key.Serializer, run.Key.Operation, run.Key.Objects).Add(sample, run.Key);
            }
            // Without runs (any app's trace) the busiest threads get a call tree each, over the whole trace, and the
            // process one of all its threads (the tree of the whole trace's hot methods).
            var wholeTrace = analysis.Runs.Count == 0
                ? analysis.Threads.Where(t => t.Samples > 0).Take(WholeTraceThreads).ToDictionary(t => t.ThreadId, ThreadLabel)
                : [];
            foreach (var sample in ledger.ThreadSamples)
            {
                if (analysis.Runs.Count == 0) Of(collectors, AllThreads, WholeTraceOperation, 0).Add(sample, null);
                if (wholeTrace.TryGetValue(sample.ThreadId, out var label)) Of(collectors, label, WholeTraceOperation, 0).Add(sample, null);
            }
        }
        var directory = speedscopeDirectory is null ? null : Path.GetFullPath(speedscopeDirectory);
        var ordered = collectors.Values.Select(c => (Profile: c.Finish(directory), c.Source))
            .OrderBy(c => c.Profile.Serializer, StringComparer.Ordinal).ThenBy(c => CaseSummary.OperationOrder(c.Profile.Operation)).ThenBy(c => c.Profile.Objects).ToList();
        return new RunStacks
        {
            Profiles = [.. ordered.Select(c => c.Profile)],
            GcPauses = ledger?.GcPauses ?? [],
            SpeedscopeDirectory = directory,
            FirefoxPath = firefoxPath is null ? null : Path.GetFullPath(firefoxPath),
            Sources = ordered.ToDictionary(c => c.Profile, c => (StackSource)c.Source),
        };
    }

    private static Collector Of(Dictionary<(string, string, int), Collector> collectors, string serializer, string operation, int objects)
    {
        if (!collectors.TryGetValue((serializer, operation, objects), out var c)) collectors[(serializer, operation, objects)] = c = new Collector(serializer, operation, objects);
        return c;
    }

    private static string ThreadLabel(ThreadProfile t) => t.Name is { Length: > 0 } name ? $"thread {t.ThreadId} ({name})" : $"thread {t.ThreadId}";

    /// <summary>
    /// "System.Text.Json.serialize.N10000.speedscope.json" ("System.Text.Json.serialize.speedscope.json" for a case
    /// without N): serializer names are file-name safe, but custom ones may not be.
    /// </summary>
    public static string SpeedscopeFileName(string serializer, string operation, int objects)
    {
        var invalid = Path.GetInvalidFileNameChars();
        var safe = new string([.. $"{serializer}.{operation}{(objects == 0 ? "" : $".N{objects}")}".Select(ch => invalid.Contains(ch) || ch is ' ' or '\\' or '/' ? '_' : ch)]);
        return safe + ".speedscope.json";
    }

    /// <summary>The stack source and call tree of one serializer, operation and N (or one thread), filled in time order.</summary>
    private sealed class Collector
    {
        private readonly StackSourceSample _sample;
        private readonly HashSet<RunKey> _runs = [];
        private readonly StackSourceFrameIndex _gcFrame;
        private readonly StackSourceFrameIndex _gcWorkFrame;
        private readonly Dictionary<int, StackSourceCallStackIndex> _threadRoots = [];
        private readonly Dictionary<StackTags.StackFrame, (StackSourceFrameIndex Index, string Name)> _frames = [];
        private readonly List<string> _names = new(128);
        private readonly List<int> _counts = new(128);
        private readonly List<string> _chain = new(16);

        private readonly string _serializer;
        private readonly string _operation;
        private readonly int _objects;
        private readonly CallTree _tree = new();
        private int _samples;
        private double _gcMs;

        public Collector(string serializer, string operation, int objects)
        {
            (_serializer, _operation, _objects) = (serializer, operation, objects);
            Source = new InternStackSource();
            _sample = new StackSourceSample(Source);
            _gcFrame = Source.Interner.FrameIntern(GcFrame, Source.Interner.ModuleIntern("runtime"));
            _gcWorkFrame = Source.Interner.FrameIntern(GcWorkFrame, Source.Interner.ModuleIntern("runtime"));
        }

        public InternStackSource Source { get; }

        /// <summary>The profile, once every sample is in; its speedscope file named when there is a folder for it.</summary>
        public RunProfile Finish(string? speedscopeDirectory) => new()
        {
            Serializer = _serializer,
            Operation = _operation,
            Objects = _objects,
            Tree = _tree,
            Samples = _samples,
            Runs = _runs.Count,
            GcMs = _gcMs,
            SpeedscopePath = speedscopeDirectory is null || _samples == 0 ? null : Path.Combine(speedscopeDirectory, SpeedscopeFileName(_serializer, _operation, _objects)),
        };

        /// <summary>
        /// One sample: its frames, root first, under its thread (speedscope makes a profile per thread, as TraceEvent
        /// roots stacks); a GC pause as one frame; GC work on the thread under a frame that says so.
        /// </summary>
        public void Add(ChargedSample<RunAnalysis> sample, RunKey? run)
        {
            if (run is { } key) _runs.Add(key);
            _samples++;
            var stack = ThreadRoot(sample.ThreadId);
            _names.Clear();
            if (sample.Pause)
            {
                stack = Source.Interner.CallStackIntern(_gcFrame, stack);
                _names.Add(GcFrame);
                _gcMs += sample.WeightMs;
            }
            _counts.Clear();
            _counts.AddRange(Enumerable.Repeat(1, _names.Count));
            for (var i = sample.Frames.Length - 1; i >= 0; i--)
            {
                var f = sample.Frames[i];
                if (f is { Module: "?", Method: StackTags.StackFrame.Unresolved }) continue; // the unwinder's end of the chain
                var (index, name) = Frame(f);
                stack = Source.Interner.CallStackIntern(index, stack);
                if (UnnamedFrames.IsUnnamed(f))
                {
                    // The speedscope file keeps every frame; the tree makes the chain one node, named as the tables name it.
                    _chain.Add(f.ModuleName);
                    continue;
                }
                EndChain(null);
                _names.Add(name);
                _counts.Add(1);
            }
            EndChain(sample.Work);
            if (sample.InGc && !sample.Pause)
            {
                stack = Source.Interner.CallStackIntern(_gcWorkFrame, stack);
                _names.Add(GcWorkFrame);
                _counts.Add(1);
                _gcMs += sample.WeightMs;
            }
            _sample.StackIndex = stack;
            _sample.TimeRelativeMSec = sample.TimeMs;
            _sample.Metric = (float)sample.WeightMs;
            Source.AddSample(_sample);
            _tree.Add([.. _names], sample.WeightMs, [.. _counts]);
        }

        /// <summary>The unnamed frames met since the last named one, as one node: "native" above managed code, what the runtime was doing at the leaf.</summary>
        private void EndChain(string? work)
        {
            if (_chain.Count == 0) return;
            _names.Add(UnnamedFrames.Name(_chain, work));
            _counts.Add(_chain.Count);
            _chain.Clear();
        }

        private (StackSourceFrameIndex, string) Frame(StackTags.StackFrame f)
        {
            if (_frames.TryGetValue(f, out var known)) return known;
            var index = Source.Interner.FrameIntern(f.MethodName, Source.Interner.ModuleIntern(f.ModuleName));
            return _frames[f] = (index, f.Display);
        }

        private StackSourceCallStackIndex ThreadRoot(int threadId)
        {
            if (_threadRoots.TryGetValue(threadId, out var root)) return root;
            root = Source.Interner.CallStackIntern(Source.Interner.FrameIntern($"Thread ({threadId})", Source.Interner.ModuleIntern("")), StackSourceCallStackIndex.Invalid);
            _threadRoots[threadId] = root;
            return root;
        }
    }
}
