using System.Globalization;
using System.IO.Compression;
using System.Text.Json;
using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Samples;
using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Export;

/// <summary>
/// --firefox F: the whole trace as a Firefox Profiler profile, gzipped JSON in the profiler's processed format, version
/// <see cref="ProcessedProfileVersion"/> (the profiler upgrades it as it loads it). One track per thread of the process
/// with the samples the tables charged, weighted as they weigh them: a run's samples at the run's weights, the rest at
/// their thread's. Each sample's leaf carries the category of its stack tag. Markers come from the analysis: each run,
/// GC pause, throw, JIT compilation, lock wait and off-CPU stretch (<see cref="TraceMarks"/>). No second pass over the trace.
/// </summary>
public sealed class FirefoxExporter : IExporter
{
    public const string FormatName = "firefox";
    public const string Option = "--firefox";
    /// <summary>
    /// The processed format as of version 60 (tables shared by all threads, prefix-linked stacks): every profiler since
    /// March 2026 reads it, each later one through its own upgraders.
    /// </summary>
    public const int ProcessedProfileVersion = 60;

    public string Name => FormatName;

    public ExportTarget Target => ExportTarget.File;

    public void Export(ReportDocument report, TextWriter terminal, string? path, IProgress<string> progress)
    {
        ArgumentNullException.ThrowIfNull(path);
        if (report.Analysis is not { Samples: { } samples, Marks: { } marks } analysis)
            throw new InvalidOperationException($"{Option} needs the analysis with its samples and marks (AnalyzerOptions.KeepMarks)");
        var profile = new Profile(analysis, samples, marks);
        OutputFile.Writable(Option, path, () =>
        {
            if (Path.GetDirectoryName(Path.GetFullPath(path)) is { } dir) Directory.CreateDirectory(dir);
            using var file = File.Create(path);
            using var gzip = new GZipStream(file, CompressionLevel.Fastest);
            using var json = new Utf8JsonWriter(gzip);
            profile.Write(json);
        });
        progress.Report($"wrote {path}: {profile.Tracks.Count} threads, {profile.Tracks.Sum(t => t.Samples.Count):N0} samples, {profile.Tracks.Sum(t => t.Markers.Count):N0} markers");
    }

    /// <summary>What the profiler's profile info panel says of the samples: how they were taken and weighed.</summary>
    public static string SamplesLine(TraceInfo trace, double periodMs) => trace.OnCpu
        ? FormattableString.Invariant($"on-CPU samples of the kernel session ({WireNames.Of(trace.CpuSource)}), one per {periodMs:0.###} ms of CPU, scaled to each thread's on-CPU time from its context switches; weights are ms")
        : "safe-point samples of EventPipe's sampler: a thread is sampled only where the runtime can stop it, managed code only; "
          + "each weighs the time since its thread's previous sample, GC pauses taken out; weights are ms";

    private const string RunSchema = "Run", GcSchema = "GC", ThrowSchema = "Exception", JitSchema = "JIT", LockSchema = "Lock wait", OffCpuSchema = "Off-CPU";

    /// <summary>The profiler's categories: a sample is drawn in its leaf frame's, which its stack tag chooses.</summary>
    private enum Category { Other, Managed, Native, Kernel, Gc, Jit, Reflection, Exceptions }

    private static readonly (string Name, string Color)[] s_categories =
    [
        ("Other", "grey"), ("Managed code", "yellow"), ("Native runtime", "lightblue"), ("Kernel", "brown"),
        ("GC", "orange"), ("JIT", "purple"), ("Reflection", "green"), ("Exceptions", "magenta"),
    ];

    /// <summary>The category of a stack tag's first level, when it names one (Serialize\X is the leaf's own code).</summary>
    private static Category? CategoryOfTag(string? tag) => tag?.Split('\\')[0] switch
    {
        StackTagMatcher.Gc => Category.Gc,
        "JIT" => Category.Jit,
        "Reflection" or "Activator" => Category.Reflection,
        "Exceptions" => Category.Exceptions,
        "Kernel" => Category.Kernel,
        "Native runtime" or "Type loading" => Category.Native,
        _ => null,
    };

    private static Category CategoryOfFrame(StackFrame f) =>
        f.Module is "kernel" || f.Module.StartsWith("ntoskrnl", StringComparison.OrdinalIgnoreCase) ? Category.Kernel
        : NativeExplanation.IsNative(f) ? Category.Native : Category.Managed;

    /// <summary>A marker's payload field: text, or a number.</summary>
    private readonly record struct Field(string Key, string? Text, double Number = 0);

    private sealed record Marker(int Name, double Start, double? End, Category Category, string Type, Field[] Fields);

    /// <summary>One thread's track: its samples in time order and its markers.</summary>
    private sealed class Track(int threadId, string name)
    {
        public int ThreadId { get; } = threadId;
        public string Name { get; } = name;
        public List<(double Time, int Stack, double Weight)> Samples { get; } = [];
        public List<Marker> Markers { get; } = [];
    }

    /// <summary>The profile's tables, filled from the analysis, then written in one go.</summary>
    private sealed class Profile
    {
        private readonly TraceAnalysis _analysis;
        private readonly double _periodMs;
        private readonly List<string> _strings = [];
        private readonly Dictionary<string, int> _stringIndex = new(StringComparer.Ordinal);
        private readonly List<string>[] _subcategories = [.. s_categories.Select(_ => new List<string> { "Other" })];
        private readonly List<(string Name, int String)> _modules = [];
        private readonly Dictionary<string, int> _moduleIndex = new(StringComparer.Ordinal);
        private readonly List<(int Name, int Resource)> _funcs = [];
        private readonly Dictionary<(int Name, int Resource), int> _funcIndex = [];
        private readonly List<(int Func, int Category, int Subcategory)> _frames = [];
        private readonly Dictionary<(int Func, int Category, int Subcategory), int> _frameIndex = [];
        private readonly List<(int Prefix, int Frame)> _stacks = [];
        private readonly Dictionary<(int Prefix, int Frame), int> _stackIndex = [];
        private readonly Dictionary<StackFrame[], Dictionary<(string? Work, string? Tag, bool InGc), int>> _stackOfFrames = new(ReferenceEqualityComparer.Instance);
        private readonly Dictionary<int, Track> _tracks = [];
        private readonly List<(string Name, string Module, Category Category)> _path = [];
        private readonly List<string> _chain = [];

        public Profile(TraceAnalysis analysis, SampleLedger<RunAnalysis> ledger, TraceMarks marks)
        {
            _analysis = analysis;
            _periodMs = ledger.PeriodMs > 0 ? ledger.PeriodMs : analysis.Trace.ObservedSampleIntervalMs ?? 1;
            foreach (var t in analysis.Threads) TrackOf(t.ThreadId);
            AddSamples(ledger);
            AddRuns();
            AddGcs(ledger.GcPauses, marks.Gcs);
            foreach (var t in marks.Throws)
                Add(t.ThreadId, new Marker(String(ThrowSchema), t.TimeMs, null, Category.Exceptions, ThrowSchema, [new("exceptionType", t.Type), new("site", t.Site)]));
            foreach (var j in marks.Jit)
                Add(j.ThreadId, new Marker(String(JitSchema), j.StartMs, j.EndMs, Category.Jit, JitSchema, [new("method", j.What)]));
            foreach (var w in marks.LockWaits)
                Add(w.ThreadId, new Marker(String(LockSchema), w.StartMs, w.EndMs, Category.Other, LockSchema, [new("site", w.What)]));
            foreach (var o in marks.OffCpu)
                Add(o.ThreadId, new Marker(String(OffCpuSchema), o.StartMs, o.EndMs, Category.Kernel, OffCpuSchema, [new("reason", WireNames.Of(o.Reason))]));
            Tracks = [.. _tracks.Values];
            foreach (var track in Tracks) track.Samples.Sort((a, b) => a.Time.CompareTo(b.Time));
        }

        /// <summary>The threads in the analysis's order (busiest first), then those only a sample or mark named.</summary>
        public IReadOnlyList<Track> Tracks { get; }

        private Track TrackOf(int threadId)
        {
            if (_tracks.TryGetValue(threadId, out var track)) return track;
            var name = _analysis.Threads.FirstOrDefault(t => t.ThreadId == threadId)?.Name;
            return _tracks[threadId] = new Track(threadId, name is { Length: > 0 } ? name : $"Thread {threadId}");
        }

        private void Add(int threadId, Marker marker) => TrackOf(threadId).Markers.Add(marker);

        private int String(string s)
        {
            if (_stringIndex.TryGetValue(s, out var i)) return i;
            _strings.Add(s);
            return _stringIndex[s] = _strings.Count - 1;
        }

        /// <summary>
        /// A run's samples at the run's weights (so a run's samples add up to its CPU column), every other sample at its
        /// thread's; the same sample is in both lists, found by its thread and time.
        /// </summary>
        private void AddSamples(SampleLedger<RunAnalysis> ledger)
        {
            var inRuns = new HashSet<(int, double)>();
            foreach (var s in ledger.RunSamples)
            {
                if (s.Run is null) continue; // a run --n left out: its thread's sample stands for it
                if (!s.Pause) inRuns.Add((s.ThreadId, s.TimeMs));
                TrackOf(s.ThreadId).Samples.Add((s.TimeMs, StackOf(s), s.WeightMs));
            }
            foreach (var s in ledger.ThreadSamples)
                if (!inRuns.Contains((s.ThreadId, s.TimeMs))) TrackOf(s.ThreadId).Samples.Add((s.TimeMs, StackOf(s), s.WeightMs));
        }

        /// <summary>A sample's stack: its frames root first, a chain of unnamed frames as one (named as the call trees name it), GC as a frame of its own.</summary>
        private int StackOf(ChargedSample<RunAnalysis> s)
        {
            if (s.Pause) return Stack(-1, Frame(RunStackCollector.GcFrame, "runtime", Category.Gc, s.Tag));
            if (!_stackOfFrames.TryGetValue(s.Frames, out var byWork)) _stackOfFrames[s.Frames] = byWork = [];
            if (byWork.TryGetValue((s.Work, s.Tag, s.InGc), out var known)) return known;
            _path.Clear();
            for (var i = s.Frames.Length - 1; i >= 0; i--)
            {
                var f = s.Frames[i];
                if (f is { Module: "?", Method: StackFrame.Unresolved }) continue; // the unwinder's end of the chain
                if (UnnamedFrames.IsUnnamed(f)) { _chain.Add(f.ModuleName); continue; }
                EndChain(null);
                _path.Add((f.MethodName, f.ModuleName, CategoryOfFrame(f)));
            }
            EndChain(s.Work);
            if (s.InGc) _path.Add((RunStackCollector.GcWorkFrame, "runtime", Category.Gc));
            var stack = -1;
            for (var i = 0; i < _path.Count; i++)
            {
                var (name, module, category) = _path[i];
                var leaf = i == _path.Count - 1;
                stack = Stack(stack, leaf ? Frame(name, module, CategoryOfTag(s.Tag) ?? category, s.Tag) : Frame(name, module, category, null));
            }
            return byWork[(s.Work, s.Tag, s.InGc)] = stack;
        }

        private void EndChain(string? work)
        {
            if (_chain.Count == 0) return;
            _path.Add((UnnamedFrames.Name(_chain, work), _chain[^1], Category.Native));
            _chain.Clear();
        }

        /// <summary>A frame of a function in a module, in a category; the leaf's subcategory is its stack tag.</summary>
        private int Frame(string name, string module, Category category, string? tag)
        {
            if (!_moduleIndex.TryGetValue(module, out var resource))
            {
                _modules.Add((module, String(module)));
                _moduleIndex[module] = resource = _modules.Count - 1;
            }
            var funcKey = (String(name), resource);
            if (!_funcIndex.TryGetValue(funcKey, out var func))
            {
                _funcs.Add(funcKey);
                _funcIndex[funcKey] = func = _funcs.Count - 1;
            }
            var subcategories = _subcategories[(int)category];
            var sub = tag is null ? 0 : subcategories.IndexOf(tag);
            if (sub < 0)
            {
                subcategories.Add(tag!);
                sub = subcategories.Count - 1;
            }
            var frameKey = (func, (int)category, sub);
            if (_frameIndex.TryGetValue(frameKey, out var frame)) return frame;
            _frames.Add(frameKey);
            return _frameIndex[frameKey] = _frames.Count - 1;
        }

        private int Stack(int prefix, int frame)
        {
            if (_stackIndex.TryGetValue((prefix, frame), out var stack)) return stack;
            _stacks.Add((prefix, frame));
            return _stackIndex[(prefix, frame)] = _stacks.Count - 1;
        }

        /// <summary>Each run as an interval on its worker (and crew): selecting it selects its time, so the call tree is that run's.</summary>
        private void AddRuns()
        {
            foreach (var run in _analysis.Runs)
            {
                var k = run.Key;
                var name = String(FormattableString.Invariant($"{k.Serializer} {k.Operation}{(k.Objects > 0 ? $" N={k.Objects:N0}" : "")}"));
                Field[] fields =
                [
                    new("serializer", k.Serializer), new("operation", k.Operation), new("n", null, k.Objects), new("run", null, k.Run),
                    new("kind", run.IsWarmup ? "warm-up" : run.IsOutlier ? "outlier" : "measured"),
                    new("window", null, run.DurationMs), new("stopwatch", null, run.StopwatchMs ?? double.NaN), new("cpu", null, run.CpuKnown ? run.CpuMs : double.NaN),
                    new("gcPause", null, run.GcPauseMs),
                ];
                IReadOnlyList<int> threads = run.CrewThreadIds.Count > 0 ? run.CrewThreadIds : [run.WorkerThreadId != 0 ? run.WorkerThreadId : run.MarkerThreadId];
                foreach (var thread in threads.Distinct()) Add(thread, new Marker(name, run.StartMs, run.EndMs, Category.Other, RunSchema, fields));
            }
        }

        /// <summary>Each GC pause on the thread whose GC it was, with that GC's generation and reason; a GC with no pause of its own (background) as an instant.</summary>
        private void AddGcs(IReadOnlyList<Interval> pauses, IReadOnlyList<GcMark> gcs)
        {
            var name = String(GcSchema);
            var next = 0;
            foreach (var pause in pauses)
            {
                while (next < gcs.Count && gcs[next].TimeMs < pause.StartMs) AddGc(name, gcs[next++], null);
                var first = next;
                while (next < gcs.Count && gcs[next].TimeMs <= pause.EndMs) next++;
                if (first == next) continue; // no GCStart inside: not a pause of the recorded process's GCs
                var gc = gcs[first];
                Add(gc.ThreadId, new Marker(name, pause.StartMs, pause.EndMs, Category.Gc, GcSchema, [.. GcFields(gc), new("pause", null, pause.EndMs - pause.StartMs)]));
            }
            while (next < gcs.Count) AddGc(name, gcs[next++], null);
        }

        private void AddGc(int name, GcMark gc, double? end) => Add(gc.ThreadId, new Marker(name, gc.TimeMs, end, Category.Gc, GcSchema, GcFields(gc)));

        private static Field[] GcFields(GcMark gc) =>
            [new("number", null, gc.Number), new("generation", null, gc.Generation), new("reason", gc.Reason), new("gcType", gc.Type)];

        public void Write(Utf8JsonWriter w)
        {
            var trace = _analysis.Trace;
            w.WriteStartObject();
            w.WriteStartObject("meta");
            w.WriteNumber("interval", _periodMs);
            w.WriteNumber("startTime", 0);
            w.WriteNumber("profilingStartTime", 0);
            w.WriteNumber("profilingEndTime", trace.DurationMs);
            w.WriteNumber("processType", 0);
            w.WriteString("product", $"esp: {trace.ProcessName ?? "process"} {trace.ProcessId}");
            w.WriteString("importedFrom", "esp analyze " + Option);
            w.WriteNumber("stackwalk", 1);
            w.WriteNumber("version", 31); // the Gecko profile format of that time: required, not read
            w.WriteNumber("preprocessedProfileVersion", ProcessedProfileVersion);
            w.WriteBoolean("symbolicated", true);
            w.WriteBoolean("keepProfileThreadOrder", true);
            w.WriteStartObject("sampleUnits");
            w.WriteString("time", "ms");
            w.WriteString("eventDelay", "ms");
            w.WriteString("threadCPUDelta", "µs");
            w.WriteEndObject();
            w.WriteStartArray("categories");
            for (var c = 0; c < s_categories.Length; c++)
            {
                w.WriteStartObject();
                w.WriteString("name", s_categories[c].Name);
                w.WriteString("color", s_categories[c].Color);
                Strings(w, "subcategories", _subcategories[c]);
                w.WriteEndObject();
            }
            w.WriteEndArray();
            WriteSchemas(w);
            w.WriteStartArray("extra");
            w.WriteStartObject();
            w.WriteString("label", "esp");
            w.WriteStartArray("entries");
            foreach (var (label, value) in new[]
            {
                ("Trace", trace.Path), ("Samples", SamplesLine(trace, _periodMs)),
                ("Format", FormattableString.Invariant($"Firefox Profiler processed profile, version {ProcessedProfileVersion} (the profiler upgrades it on load)")),
            })
            {
                w.WriteStartObject();
                w.WriteString("label", label);
                w.WriteString("format", "string");
                w.WriteString("value", value);
                w.WriteEndObject();
            }
            w.WriteEndArray();
            w.WriteEndObject();
            w.WriteEndArray();
            w.WriteEndObject();

            w.WriteStartArray("libs");
            foreach (var (module, _) in _modules)
            {
                w.WriteStartObject();
                foreach (var key in new[] { "name", "path", "debugName", "debugPath" }) w.WriteString(key, module);
                w.WriteString("arch", "");
                w.WriteString("breakpadId", "");
                w.WriteNull("codeId");
                w.WriteEndObject();
            }
            w.WriteEndArray();
            w.WriteStartArray("pages");
            w.WriteEndArray();
            WriteShared(w);
            w.WriteStartArray("threads");
            foreach (var track in Tracks) WriteThread(w, track, trace.ProcessId, trace.ProcessName);
            w.WriteEndArray();
            w.WriteEndObject();
        }

        private void WriteShared(Utf8JsonWriter w)
        {
            w.WriteStartObject("shared");
            Strings(w, "stringArray", _strings);
            w.WriteStartObject("stackTable");
            Numbers(w, "frame", _stacks.Select(s => (double)s.Frame));
            NullableNumbers(w, "prefix", _stacks.Select(s => s.Prefix < 0 ? (double?)null : s.Prefix));
            w.WriteNumber("length", _stacks.Count);
            w.WriteEndObject();
            w.WriteStartObject("frameTable");
            Numbers(w, "address", _frames.Select(_ => -1.0));
            Numbers(w, "inlineDepth", _frames.Select(_ => 0.0));
            Numbers(w, "category", _frames.Select(f => (double)f.Category));
            Numbers(w, "subcategory", _frames.Select(f => (double)f.Subcategory));
            Numbers(w, "func", _frames.Select(f => (double)f.Func));
            foreach (var empty in new[] { "nativeSymbol", "innerWindowID", "line", "column" }) NullableNumbers(w, empty, _frames.Select(_ => (double?)null));
            w.WriteNumber("length", _frames.Count);
            w.WriteEndObject();
            w.WriteStartObject("funcTable");
            Numbers(w, "name", _funcs.Select(f => (double)f.Name));
            Booleans(w, "isJS", _funcs.Count, false);
            Booleans(w, "relevantForJS", _funcs.Count, false);
            Numbers(w, "resource", _funcs.Select(f => (double)f.Resource));
            foreach (var empty in new[] { "source", "lineNumber", "columnNumber" }) NullableNumbers(w, empty, _funcs.Select(_ => (double?)null));
            w.WriteNumber("length", _funcs.Count);
            w.WriteEndObject();
            // One resource per module, each its library (resource type 1).
            w.WriteStartObject("resourceTable");
            Numbers(w, "lib", _modules.Select((_, i) => (double)i));
            Numbers(w, "name", _modules.Select(m => (double)m.String));
            NullableNumbers(w, "host", _modules.Select(_ => (double?)null));
            Numbers(w, "type", _modules.Select(_ => 1.0));
            w.WriteNumber("length", _modules.Count);
            w.WriteEndObject();
            w.WriteStartObject("nativeSymbols");
            foreach (var empty in new[] { "libIndex", "address", "name", "functionSize" }) Numbers(w, empty, []);
            w.WriteNumber("length", 0);
            w.WriteEndObject();
            w.WriteStartObject("sources");
            Strings(w, "id", []);
            Numbers(w, "filename", []);
            w.WriteNumber("length", 0);
            w.WriteEndObject();
            w.WriteEndObject();
        }

        private static void WriteThread(Utf8JsonWriter w, Track track, int pid, string? processName)
        {
            w.WriteStartObject();
            w.WriteString("processType", "default");
            w.WriteNumber("processStartupTime", 0);
            w.WriteNull("processShutdownTime");
            w.WriteNumber("registerTime", 0);
            w.WriteNull("unregisterTime");
            w.WriteStartArray("pausedRanges");
            w.WriteEndArray();
            w.WriteString("name", track.Name);
            // The thread whose id is the process's (Linux): the process's track, its other threads under it.
            w.WriteBoolean("isMainThread", track.ThreadId == pid);
            if (processName is not null) w.WriteString("processName", processName);
            w.WriteString("pid", pid.ToString(CultureInfo.InvariantCulture));
            w.WriteNumber("tid", track.ThreadId);
            w.WriteStartObject("samples");
            Numbers(w, "stack", track.Samples.Select(s => (double)s.Stack));
            Numbers(w, "time", track.Samples.Select(s => s.Time));
            Numbers(w, "weight", track.Samples.Select(s => s.Weight));
            // The same time as CPU in µs: the profiler's CPU usage per thread and its activity graph's height.
            Numbers(w, "threadCPUDelta", track.Samples.Select(s => Math.Round(s.Weight * 1000)));
            w.WriteString("weightType", "tracing-ms");
            w.WriteNumber("length", track.Samples.Count);
            w.WriteEndObject();
            w.WriteStartObject("markers");
            w.WriteStartArray("data");
            foreach (var m in track.Markers)
            {
                w.WriteStartObject();
                w.WriteString("type", m.Type);
                foreach (var f in m.Fields)
                {
                    if (f.Text is not null) w.WriteString(f.Key, f.Text);
                    else if (double.IsFinite(f.Number)) w.WriteNumber(f.Key, f.Number);
                }
                w.WriteEndObject();
            }
            w.WriteEndArray();
            Numbers(w, "name", track.Markers.Select(m => (double)m.Name));
            Numbers(w, "startTime", track.Markers.Select(m => m.Start));
            NullableNumbers(w, "endTime", track.Markers.Select(m => m.End));
            // The profiler's marker phases: 0 an instant, 1 an interval.
            Numbers(w, "phase", track.Markers.Select(m => m.End is null ? 0.0 : 1.0));
            Numbers(w, "category", track.Markers.Select(m => (double)m.Category));
            w.WriteNumber("length", track.Markers.Count);
            w.WriteEndObject();
            w.WriteEndObject();
        }

        /// <summary>The markers' schemas: how the profiler labels them and lays out their fields.</summary>
        private static void WriteSchemas(Utf8JsonWriter w)
        {
            w.WriteStartArray("markerSchema");
            Schema(w, RunSchema, "{marker.name} run {marker.data.run} ({marker.data.kind})", "a run: select it to see its samples alone", timeline: true,
                ("serializer", "Serializer", "string"), ("operation", "Operation", "string"), ("n", "N", "integer"), ("run", "Run", "integer"),
                ("kind", "Kind", "string"), ("window", "Window", "duration"), ("stopwatch", "Stopwatch", "duration"), ("cpu", "CPU", "duration"),
                ("gcPause", "GC pause", "duration"));
            Schema(w, GcSchema, "GC {marker.data.number}: gen{marker.data.generation}, {marker.data.reason}", "a GC: its pause (the runtime suspended), or its start when it paused nothing", timeline: true,
                ("number", "Number", "integer"), ("generation", "Generation", "integer"), ("reason", "Reason", "string"), ("gcType", "Type", "string"),
                ("pause", "Pause", "duration"));
            Schema(w, ThrowSchema, "{marker.data.exceptionType} at {marker.data.site}", "a first-chance exception and the frame that threw it", timeline: false,
                ("exceptionType", "Type", "string"), ("site", "Thrown at", "string"));
            Schema(w, JitSchema, "JIT {marker.data.method}", "a method compiled", timeline: false, ("method", "Method", "string"));
            Schema(w, LockSchema, "lock wait at {marker.data.site}", "a wait for a contended lock", timeline: false, ("site", "Wanted by", "string"));
            Schema(w, OffCpuSchema, "off-CPU: {marker.data.reason}", "a stretch of a run's thread off the CPU (kernel session)", timeline: false, ("reason", "Reason", "string"));
            w.WriteEndArray();
        }

        private static void Schema(Utf8JsonWriter w, string name, string label, string description, bool timeline, params (string Key, string Label, string Format)[] fields)
        {
            w.WriteStartObject();
            w.WriteString("name", name);
            w.WriteString("tooltipLabel", label);
            w.WriteString("tableLabel", label);
            w.WriteString("chartLabel", label);
            w.WriteString("description", description);
            Strings(w, "display", timeline ? ["marker-chart", "marker-table", "timeline-overview"] : ["marker-chart", "marker-table"]);
            w.WriteStartArray("fields");
            foreach (var (key, fieldLabel, format) in fields)
            {
                w.WriteStartObject();
                w.WriteString("key", key);
                w.WriteString("label", fieldLabel);
                w.WriteString("format", format);
                w.WriteEndObject();
            }
            w.WriteEndArray();
            w.WriteEndObject();
        }

        private static void Strings(Utf8JsonWriter w, string name, IEnumerable<string> values)
        {
            w.WriteStartArray(name);
            foreach (var v in values) w.WriteStringValue(v);
            w.WriteEndArray();
        }

        private static void Numbers(Utf8JsonWriter w, string name, IEnumerable<double> values)
        {
            w.WriteStartArray(name);
            foreach (var v in values) w.WriteNumberValue(v);
            w.WriteEndArray();
        }

        private static void NullableNumbers(Utf8JsonWriter w, string name, IEnumerable<double?> values)
        {
            w.WriteStartArray(name);
            foreach (var v in values)
                if (v is { } n) w.WriteNumberValue(n);
                else w.WriteNullValue();
            w.WriteEndArray();
        }

        private static void Booleans(Utf8JsonWriter w, string name, int count, bool value)
        {
            w.WriteStartArray(name);
            for (var i = 0; i < count; i++) w.WriteBooleanValue(value);
            w.WriteEndArray();
        }
    }
}
