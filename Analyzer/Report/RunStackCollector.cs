using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using Microsoft.Diagnostics.Tracing.Stacks;

namespace EtwSerializerProfiler.Analyzer.Report;

/// <summary>
/// A second pass over the trace, only for --html and --speedscope, so plain `esp analyze` stays as fast as before:
/// the managed samples inside each measured run's window (on its worker thread), weighted as the analyzer weighs
/// them (time since the thread's previous sample, GC pauses taken out), gathered per serializer and operation into
/// a TraceEvent stack source (written by Export/SpeedscopeExporter) and a call tree (drawn in the HTML).
/// With a kernel session the tables were charged from its samples, so the stacks are those (managed, native and
/// kernel frames), kept by the analysis. Warm-up runs are left out, as in the tables.
/// </summary>
public static class RunStackCollector
{
    private const string SampleProfilerProvider = "Microsoft-DotNETCore-SampleProfiler";
    /// <summary>The pseudo-frame standing for time the runtime was suspended for a GC: no stack is sampled then.</summary>
    public const string GcFrame = "[GC pause: runtime suspended]";
    /// <summary>Kernel samples: the GC's own work on the sampled thread (libcoreclr is stripped, so its frames have no names).</summary>
    public const string GcWorkFrame = "[GC work on this thread]";

    /// <returns>The stacks, holding the trace log open until disposed (the exporters read the stack sources).</returns>
    public static RunStacks Collect(TraceInput input, TraceAnalysis analysis, AnalyzerOptions options, IProgress<string>? progress = null)
    {
        var etlx = new TraceAnalyzer(options).OpenTraceLog(input, analysis, progress);
        try
        {
            return Collect(etlx, analysis, progress);
        }
        catch
        {
            etlx.Dispose();
            throw;
        }
    }

    private static RunStacks Collect(Input.EtlxLease etlx, TraceAnalysis analysis, IProgress<string>? progress)
    {
        var windows = analysis.Runs.Where(r => !r.IsWarmup).OrderBy(r => r.StartMs).ToList();
        var starts = windows.Select(r => r.StartMs).ToArray();
        var log = etlx.Log;
        var collectors = new Dictionary<(string, string), Collector>();
        var weigher = new SampleWeigher();
        var pauses = new List<PauseWindow>();
        var suspensions = new Dictionary<int, (double StartMs, bool IsGc)>();
        var source = log.Events.GetSource();

        // As in the analyzer: the sampler suspends the runtime too, so only suspensions that ran a GC are pauses.
        source.Clr.GCSuspendEEStart += e => suspensions[e.ThreadID] = (e.TimeStampRelativeMSec,
            e.Reason is GCSuspendEEReason.SuspendForGC or GCSuspendEEReason.SuspendForGCPrep);
        source.Clr.GCStart += e => { if (suspensions.TryGetValue(e.ThreadID, out var s)) suspensions[e.ThreadID] = (s.StartMs, true); };
        source.Clr.GCRestartEEStop += e =>
        {
            if (suspensions.Remove(e.ThreadID, out var s) && s.IsGc) pauses.Add(new PauseWindow(s.StartMs, e.TimeStampRelativeMSec));
        };
        // A kernel session's samples are what the tables were charged from: the call trees use the same ones.
        var kernel = analysis.KernelSamples;
        // Without runs (any app's trace) the busiest threads get a call tree each, over the whole trace.
        var wholeTrace = analysis.Runs.Count == 0
            ? analysis.Threads.Where(t => t.Samples > 0).Take(WholeTraceThreads).ToDictionary(t => t.ThreadId, ThreadLabel)
            : [];
        source.AllEvents += e =>
        {
            if (kernel is not null || (int)e.ID != 0 || e.ProviderName != SampleProfilerProvider) return;
            var now = e.TimeStampRelativeMSec;
            var since = weigher.Previous(e.ThreadID, now);
            if (wholeTrace.TryGetValue(e.ThreadID, out var label))
            {
                if (!IsManagedSample(e)) return;
                var wholeKey = (label, WholeTraceOperation);
                if (!collectors.TryGetValue(wholeKey, out var wc)) collectors[wholeKey] = wc = new Collector(log, label, WholeTraceOperation);
                wc.AddWhole(e, since, weigher.Cap(now - since));
                return;
            }
            if (!IsManagedSample(e) || RunAt(windows, starts, now, e.ThreadID) is not { } run) return;
            var from = Math.Max(since, run.StartMs);
            var gcMs = 0.0;
            for (var i = pauses.Count - 1; i >= 0 && pauses[i].EndMs > from - 1000; i--) gcMs += pauses[i].Overlap(from, now);
            var key = (run.Key.Serializer, run.Key.Operation);
            if (!collectors.TryGetValue(key, out var c)) collectors[key] = c = new Collector(log, run.Key.Serializer, run.Key.Operation);
            c.Add(e, run, from, weigher.Cap(now - from - gcMs), gcMs);
        };
        progress?.Report("collecting the stacks of the measured runs...");
        TracePass.ProcessReadable(source, analysis);
        if (kernel is not null)
            foreach (var (thread, ms, stack, inGc) in kernel.ThreadSamples)
            {
                if (!wholeTrace.TryGetValue(thread, out var label)) continue;
                var key = (label, WholeTraceOperation);
                if (!collectors.TryGetValue(key, out var c)) collectors[key] = c = new Collector(log, label, WholeTraceOperation);
                c.AddKernelThread(thread, ms, kernel.FramesOf(stack), kernel.SamplePeriodMs, inGc);
            }
        if (kernel is not null)
            foreach (var sample in kernel.MeasuredSamples)
            {
                var key = (sample.Run.Key.Serializer, sample.Run.Key.Operation);
                if (!collectors.TryGetValue(key, out var c)) collectors[key] = c = new Collector(log, sample.Run.Key.Serializer, sample.Run.Key.Operation);
                c.AddKernel(sample.Run, sample.TimeMs, kernel.FramesOf(sample), sample.WeightMs, sample.InGc);
            }

        var ordered = collectors.Values.OrderBy(c => c.Profile.Serializer, StringComparer.Ordinal).ThenBy(c => Output.SerializerSummary.OperationOrder(c.Profile.Operation)).ToList();
        foreach (var c in ordered) c.Source.DoneAddingSamples();
        return new RunStacks
        {
            Profiles = [.. ordered.Select(c => c.Profile)],
            GcPauses = pauses,
            Sources = ordered.ToDictionary(c => c.Profile, c => (StackSource)c.Source),
            TraceLog = etlx,
        };
    }

    /// <summary>The busiest threads of a trace without runs that get a call tree and a speedscope file.</summary>
    public const int WholeTraceThreads = 6;
    public const string WholeTraceOperation = "whole trace";

    private static string ThreadLabel(Model.ThreadProfile t) => t.Name is { Length: > 0 } name ? $"thread {t.ThreadId} ({name})" : $"thread {t.ThreadId}";

    /// <summary>"System.Text.Json.serialize.speedscope.json": serializer names are file-name safe, but custom ones may not be.</summary>
    public static string SpeedscopeFileName(string serializer, string operation)
    {
        var invalid = Path.GetInvalidFileNameChars();
        var safe = new string([.. $"{serializer}.{operation}".Select(ch => invalid.Contains(ch) || ch is ' ' or '\\' or '/' ? '_' : ch)]);
        return safe + ".speedscope.json";
    }

    private static RunAnalysis? RunAt(List<RunAnalysis> windows, double[] starts, double timeMs, int thread)
    {
        var i = Array.BinarySearch(starts, timeMs);
        if (i < 0) i = ~i - 1;
        if (i < 0) return null;
        var run = windows[i];
        if (timeMs > run.EndMs) return null;
        return run.WorkerThreadId == 0 || run.WorkerThreadId == thread ? run : null;
    }

    private static bool IsManagedSample(TraceEvent e) => e.PayloadValue(0) switch
    {
        string s => s == "Managed",
        null => true,
        var v => Convert.ToInt32(v, System.Globalization.CultureInfo.InvariantCulture) == 2,
    };

    /// <summary>The stack source and call tree of one serializer and operation, filled in trace order.</summary>
    private sealed class Collector
    {
        private readonly StackSourceSample _sample;
        private readonly Dictionary<StackSourceCallStackIndex, string[]> _framesByStack = [];
        private readonly HashSet<RunKey> _runs = [];
        private readonly StackSourceFrameIndex _gcFrame;
        private readonly StackSourceFrameIndex _gcWorkFrame;
        private readonly TraceLog _log;
        private readonly Dictionary<int, StackSourceCallStackIndex> _threadRoots = [];

        public Collector(TraceLog log, string serializer, string operation)
        {
            _log = log;
            Source = new MutableTraceEventStackSource(log);
            _sample = new StackSourceSample(Source);
            _gcFrame = Source.Interner.FrameIntern(GcFrame, Source.Interner.ModuleIntern("runtime"));
            _gcWorkFrame = Source.Interner.FrameIntern(GcWorkFrame, Source.Interner.ModuleIntern("runtime"));
            Profile = new RunProfile { Serializer = serializer, Operation = operation };
        }

        public MutableTraceEventStackSource Source { get; }
        public RunProfile Profile { get; }

        public void Add(TraceEvent e, RunAnalysis run, double fromMs, double weightMs, double gcMs)
        {
            if (_runs.Add(run.Key)) Profile.Runs++;
            Profile.Samples++;
            if (gcMs > 0 && e.Thread() is { } thread)
            {
                // The pause came first (the thread was stopped), then the sampled stack ran for the rest of the gap.
                AddSample(Source.Interner.CallStackIntern(_gcFrame, Source.GetCallStackForThread(thread)), fromMs, gcMs);
                Profile.GcMs += gcMs;
                Profile.Tree.Add([GcFrame], gcMs);
                fromMs += gcMs;
            }
            if (weightMs <= 0) return;
            var stack = Source.GetCallStack(e.CallStackIndex(), e);
            AddSample(stack, fromMs, weightMs);
            Profile.Tree.Add(FramesRootFirst(stack), weightMs);
        }

        /// <summary>
        /// A kernel sample: its frames (managed, native, kernel) interned into the same stack source, root first;
        /// GC work on the thread (taken while the runtime was stopped for a GC) under a frame that says so.
        /// </summary>
        public void AddKernel(RunAnalysis run, double timeMs, List<StackTags.StackFrame> framesLeafFirst, double weightMs, bool inGc)
        {
            if (_runs.Add(run.Key)) Profile.Runs++;
            AddKernelThread(run.WorkerThreadId, timeMs, framesLeafFirst, weightMs, inGc);
        }

        /// <summary>An EventPipe sample of a whole-trace thread, weighted by the time since that thread's previous one.</summary>
        public void AddWhole(TraceEvent e, double fromMs, double weightMs)
        {
            Profile.Samples++;
            if (weightMs <= 0) return;
            var stack = Source.GetCallStack(e.CallStackIndex(), e);
            AddSample(stack, fromMs, weightMs);
            Profile.Tree.Add(FramesRootFirst(stack), weightMs);
        }

        public void AddKernelThread(int threadId, double timeMs, List<StackTags.StackFrame> framesLeafFirst, double weightMs, bool inGc)
        {
            Profile.Samples++;
            // Rooted at the worker's thread, as TraceEvent roots EventPipe stacks: speedscope makes a profile per thread.
            var stack = ThreadRoot(threadId);
            var names = new List<string>(framesLeafFirst.Count + 1);
            for (var i = framesLeafFirst.Count - 1; i >= 0; i--)
            {
                var f = framesLeafFirst[i];
                if (f is { Module: "?", Method: StackResolver.Unresolved }) continue; // the unwinder's end of the chain
                var display = StackResolver.Display(f);
                var bang = display.IndexOf('!', StringComparison.Ordinal);
                stack = Source.Interner.CallStackIntern(Source.Interner.FrameIntern(display[(bang + 1)..], Source.Interner.ModuleIntern(display[..bang])), stack);
                names.Add(display);
            }
            if (inGc)
            {
                stack = Source.Interner.CallStackIntern(_gcWorkFrame, stack);
                names.Add(GcWorkFrame);
                Profile.GcMs += weightMs;
            }
            AddSample(stack, timeMs, weightMs);
            Profile.Tree.Add([.. names], weightMs);
        }

        private StackSourceCallStackIndex ThreadRoot(int threadId)
        {
            if (_threadRoots.TryGetValue(threadId, out var root)) return root;
            var thread = _log.Threads.FirstOrDefault(t => t.ThreadID == threadId);
            root = thread is null
                ? Source.Interner.CallStackIntern(Source.Interner.FrameIntern($"Thread ({threadId})", Source.Interner.ModuleIntern("")), StackSourceCallStackIndex.Invalid)
                : Source.GetCallStackForThread(thread);
            _threadRoots[threadId] = root;
            return root;
        }

        private void AddSample(StackSourceCallStackIndex stack, double timeMs, double weightMs)
        {
            _sample.StackIndex = stack;
            _sample.TimeRelativeMSec = timeMs;
            _sample.Metric = (float)weightMs;
            Source.AddSample(_sample);
        }

        /// <summary>The frames below the "Thread (id)" pseudo-frame, root first; the thread and process frames are the same for every sample.</summary>
        private string[] FramesRootFirst(StackSourceCallStackIndex stack)
        {
            if (_framesByStack.TryGetValue(stack, out var frames)) return frames;
            var leafFirst = new List<string>();
            for (var s = stack; s != StackSourceCallStackIndex.Invalid; s = Source.GetCallerIndex(s))
            {
                var name = Source.GetFrameName(Source.GetFrameIndex(s), false);
                if (name.StartsWith("Thread (", StringComparison.Ordinal)) break;
                // EventPipe stacks stop short of the thread's start, and TraceEvent roots them at a BROKEN frame.
                if (name != "BROKEN") leafFirst.Add(name);
            }
            leafFirst.Reverse();
            frames = [.. leafFirst];
            _framesByStack[stack] = frames;
            return frames;
        }
    }
}
