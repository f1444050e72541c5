using System.Diagnostics;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Common;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Analysis;
using Microsoft.Diagnostics.Tracing.Etlx;
using TraceLog = Microsoft.Diagnostics.Tracing.Etlx.TraceLog;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// One pass over a trace: finds each run's window (the marker thread's wait, named by the run EventSource) and
/// charges CPU samples, allocations, exceptions, contention and JIT inside it to that run; GCs come from
/// TraceEvent's GC state machine afterwards. Events are handled in time order, so only the open run is touched.
/// </summary>
public sealed class TraceAnalyzer(AnalyzerOptions options)
{
    private const string SampleProfilerProvider = "Microsoft-DotNETCore-SampleProfiler";
    private const string RundownProvider = "Microsoft-Windows-DotNETRuntimeRundown";
    private static readonly Guid ClrProvider = new("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4");
    private const int WaitStartId = 301;
    private const int WaitStopId = 302;
    private static readonly string[] MeasuredFrames = ["BenchmarkRunner.SerializeRun(", "BenchmarkRunner.DeserializeRun(", "FirstCallRunner.MeasureInProcess"];
    private static readonly string[] MarkerMethods = ["SerializeDuration", "DeserializeDuration", "FirstCallDuration", "OtherDuration"];

    public TraceAnalysis Analyze(TraceInput input, IProgress<string>? progress = null)
    {
        var clock = Stopwatch.StartNew();
        var stackTagsPath = options.StackTagsPath ?? input.StackTagsPath ?? DefaultStackTagsPath();
        var tags = stackTagsPath is null ? null : StackTagFile.Load(stackTagsPath);
        var analysis = new TraceAnalysis
        {
            Trace = new TraceInfo
            {
                Path = input.DisplayName,
                Format = input.Format == TraceFormat.NetTrace ? "nettrace (EventPipe)" : "etl (ETW)",
                SizeBytes = new FileInfo(input.TracePath).Length,
                StackTagsFile = stackTagsPath,
                ResultsFile = input.ResultsPath,
                SamplingSource = input.Format == TraceFormat.NetTrace
                    ? "EventPipe SampleProfiler: time in managed code per thread (not on-CPU time)"
                    : "ETW kernel profile interrupts: on-CPU time",
            },
        };
        if (tags is null) analysis.Warnings.Add("no stack tags file found: tag columns are empty (pass --stacktags FILE)");

        using var log = OpenTraceLog(input, analysis, progress);
        var state = new PassState(analysis, log, tags is null ? null : new StackResolver(log, new StackTagMatcher(tags)), options);
        var source = log.Events.GetSource();
        source.NeedLoadedDotNetRuntimes();
        state.Subscribe(source);
        progress?.Report($"analyzing {log.EventCount:N0} events...");
        source.Process();
        state.Finish(source);

        JoinInProcessResults(input, analysis);
        analysis.Trace.AnalysisSeconds = clock.Elapsed.TotalSeconds;
        return analysis;
    }

    public static string? DefaultStackTagsPath()
    {
        var p = Path.Combine(AppContext.BaseDirectory, "stacktags", "Serializers.stacktags");
        return File.Exists(p) ? p : null;
    }

    private TraceLog OpenTraceLog(TraceInput input, TraceAnalysis analysis, IProgress<string>? progress)
    {
        if (input.Format == TraceFormat.Etl)
            throw new BadInputException($"{input.TracePath}: .etl analysis needs the Windows build of the analyzer");
        var etlx = EtlxPath(input.TracePath);
        var fresh = File.Exists(etlx) && File.GetLastWriteTimeUtc(etlx) >= File.GetLastWriteTimeUtc(input.TracePath);
        if (!fresh)
        {
            progress?.Report($"converting {input.TracePath} ({new FileInfo(input.TracePath).Length / 1048576.0:F1} MB) to {Path.GetFileName(etlx)}...");
            var convertLog = new StringWriter();
            try
            {
                File.Delete(etlx);
                TraceLog.CreateFromEventPipeDataFile(input.TracePath, etlx, new TraceLogOptions { ContinueOnError = true, ConversionLog = convertLog });
            }
            catch (Exception ex) when (ex is not BadInputException)
            {
                File.Delete(etlx);
                throw new BadInputException($"{input.TracePath}: cannot read trace ({ex.GetType().Name}: {ex.Message}); the file is corrupt or truncated", ex);
            }
            var conversion = convertLog.ToString();
            if (conversion.Contains("ERROR", StringComparison.OrdinalIgnoreCase) || conversion.Contains("truncat", StringComparison.OrdinalIgnoreCase))
            {
                analysis.Trace.Truncated = true;
                analysis.Warnings.Add("the trace ends abruptly (truncated or the process was killed): results cover the readable part");
            }
        }
        try
        {
            return new TraceLog(etlx);
        }
        catch (Exception ex)
        {
            throw new BadInputException($"{input.TracePath}: cannot open converted trace ({ex.Message})", ex);
        }
    }

    private string EtlxPath(string trace)
    {
        if (options.CacheEtlx)
        {
            var beside = trace + ".etlx";
            try
            {
                using (new FileStream(beside + ".probe", FileMode.Create, FileAccess.Write, FileShare.None, 1, FileOptions.DeleteOnClose)) { }
                return beside;
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { }
        }
        var info = new FileInfo(trace);
        return Path.Combine(Path.GetTempPath(), $"esp-{info.Length:x}-{info.LastWriteTimeUtc.Ticks:x}-{Path.GetFileName(trace)}.etlx");
    }

    private static void JoinInProcessResults(TraceInput input, TraceAnalysis analysis)
    {
        if (input.ResultsPath is null) return;
        BenchmarkResults results;
        try { results = BenchmarkResults.Load(input.ResultsPath); }
        catch (Exception ex) when (ex is System.Text.Json.JsonException or InvalidDataException or IOException)
        {
            analysis.Warnings.Add($"{input.ResultsPath}: unreadable benchmark results ({ex.Message}); in-process columns omitted");
            return;
        }
        var byKey = results.Runs.GroupBy(r => new RunKey(r.Serializer, r.Operation, r.Objects, r.Run)).ToDictionary(g => g.Key, g => g.Last());
        foreach (var run in analysis.Runs)
            if (byKey.TryGetValue(run.Key, out var r)) run.InProcess = r;
    }

    /// <summary>Mutable state of one pass; kept apart from the analyzer so the analyzer itself is reusable.</summary>
    private sealed class PassState(TraceAnalysis analysis, TraceLog log, StackResolver? stacks, AnalyzerOptions options)
    {
        private readonly SampleWeigher _weigher = new();
        private readonly Dictionary<int, PendingRun> _pendingByMarker = [];
        private readonly Dictionary<int, double> _contentionStart = [];
        private readonly Dictionary<int, double> _jitStart = [];
        private readonly Dictionary<CallStackIndex, string?> _markerMethodByStack = [];
        private readonly Dictionary<CallStackIndex, bool> _measuredByStack = [];
        private RunAnalysis? _open;
        private int _openMarker;
        private long _events;
        private long _samples;
        private long _unresolvedSamples;
        private bool _sawRunEvents;
        private bool _sawWaits;
        private int _unnamed;

        private sealed record PendingRun(RunKey Key, string Data, int WorkerThreadId, double StartEventMs);

        public void Subscribe(TraceLogEventSource source)
        {
            source.AllEvents += OnEvent;
            source.Clr.GCAllocationTick += e =>
            {
                if (RunOf(e) is not { } r) return;
                r.AllocatedBytes += e.AllocationAmount64;
                r.AllocationTicks++;
            };
            source.Clr.ExceptionStart += e =>
            {
                if (RunOf(e) is not { } r) return;
                r.Exceptions++;
                var frame = "?";
                if (stacks is not null)
                {
                    // The top managed frame that is not the runtime's own throw helper names the thrower.
                    var frames = stacks.Frames(e.CallStackIndex());
                    var thrower = frames.FirstOrDefault(f => f.Method != StackResolver.Unresolved && !f.Method.StartsWith("System.Runtime.ExceptionServices", StringComparison.Ordinal));
                    if (thrower != default) frame = StackResolver.Display(thrower);
                }
                var key = $"{e.ExceptionType} at {frame}";
                r.ExceptionsByTypeAndFrame[key] = r.ExceptionsByTypeAndFrame.GetValueOrDefault(key) + 1;
            };
            source.Clr.ContentionStart += e => { if (RunOf(e) is not null) _contentionStart[e.ThreadID] = e.TimeStampRelativeMSec; };
            source.Clr.ContentionStop += e =>
            {
                if (!_contentionStart.Remove(e.ThreadID, out var start) || _open is not { } r || start < r.StartMs) return;
                r.ContentionMs += e.TimeStampRelativeMSec - start;
                r.Contentions++;
            };
            source.Clr.MethodJittingStarted += e => { if (RunOf(e) is not null) _jitStart[e.ThreadID] = e.TimeStampRelativeMSec; };
            source.Clr.MethodLoadVerbose += e =>
            {
                if (!_jitStart.Remove(e.ThreadID, out var start) || _open is not { } r || start < r.StartMs) return;
                r.JitMs += e.TimeStampRelativeMSec - start;
                r.JitMethods++;
            };
        }

        /// <summary>
        /// The open run, if this event belongs to it: raised on the run's worker thread, or on another thread
        /// while it executes the benchmark's measured call (--threads). Background tier-1 JIT, thread-pool
        /// spinning or the marker itself are not the serializer's cost.
        /// </summary>
        private RunAnalysis? RunOf(TraceEvent e)
        {
            if (_open is not { } run || e.ThreadID == _openMarker) return null;
            if (run.WorkerThreadId == 0 || e.ThreadID == run.WorkerThreadId) return run;
            return IsMeasuredWork(e.CallStackIndex()) ? run : null;
        }

        private void OnEvent(TraceEvent e)
        {
            _events++;
            if (e.ProviderGuid == ClrProvider)
            {
                var id = (int)e.ID;
                if (id == WaitStartId) OnWaitStart(e);
                else if (id == WaitStopId) OnWaitStop(e);
                return;
            }
            if ((int)e.ID == 0 && e.ProviderName == SampleProfilerProvider) { OnSample(e); return; }
            if (e.ProviderGuid == RunEvents.ProviderGuid || e.ProviderName == RunEvents.ProviderName)
            {
                if ((int)e.ID == RunEvents.RunStartId || e.EventName == RunEvents.RunStartName) OnRunStart(e);
                else if ((int)e.ID == RunEvents.RunStopId || e.EventName == RunEvents.RunStopName) OnRunStop(e);
                return;
            }
            if (!analysis.Trace.HasRundown && e.ProviderName == RundownProvider) analysis.Trace.HasRundown = true;
        }

        private void OnRunStart(TraceEvent e)
        {
            _sawRunEvents = true;
            var key = new RunKey(
                Str(e, RunEvents.Fields.Serializer), Str(e, RunEvents.Fields.Operation),
                Int(e, RunEvents.Fields.Objects), Int(e, RunEvents.Fields.Run));
            var marker = Int(e, RunEvents.Fields.MarkerThreadId);
            _pendingByMarker[marker] = new PendingRun(key, Str(e, RunEvents.Fields.Data), Int(e, RunEvents.Fields.WorkerThreadId), e.TimeStampRelativeMSec);
        }

        private void OnRunStop(TraceEvent e)
        {
            var marker = Int(e, RunEvents.Fields.MarkerThreadId);
            var stopwatch = Convert.ToDouble(e.PayloadByName(RunEvents.Fields.DurationMs), System.Globalization.CultureInfo.InvariantCulture);
            var key = new RunKey(Str(e, RunEvents.Fields.Serializer), Str(e, RunEvents.Fields.Operation), Int(e, RunEvents.Fields.Objects), Int(e, RunEvents.Fields.Run));
            var run = analysis.Runs.LastOrDefault(r => r.Key == key && r.MarkerThreadId == marker);
            if (run is null && _pendingByMarker.Remove(marker, out var pending))
            {
                // No marker wait was seen (the profile lacks WaitHandle events): the run events bound the run.
                run = NewRun(pending.Key, pending.Data, marker, pending.WorkerThreadId, pending.StartEventMs, WindowSource.RunEvents);
                run.EndMs = e.TimeStampRelativeMSec;
                if (_open == run) _open = null;
            }
            if (run is null) return;
            run.StopwatchMs = stopwatch;
        }

        private void OnWaitStart(TraceEvent e)
        {
            _sawWaits = true;
            var isMarkerWait = _pendingByMarker.TryGetValue(e.ThreadID, out var pending);
            var markerMethod = MarkerMethodOf(e.CallStackIndex());
            if (!isMarkerWait && markerMethod is null) return;
            if (isMarkerWait && markerMethod is null && stacks is not null && e.CallStackIndex() != CallStackIndex.Invalid)
                return; // a wait of the marker thread that is not the run wait (e.g. its idle wait)
            if (pending is not null) _pendingByMarker.Remove(e.ThreadID);
            var key = pending?.Key ?? new RunKey("(unnamed)", OperationOf(markerMethod), 0, _unnamed++);
            NewRun(key, pending?.Data ?? "", e.ThreadID, pending?.WorkerThreadId ?? 0, e.TimeStampRelativeMSec, WindowSource.MarkerWait);
        }

        private void OnWaitStop(TraceEvent e)
        {
            if (_open is null || e.ThreadID != _openMarker) return;
            _open.EndMs = e.TimeStampRelativeMSec;
            _open = null;
        }

        private RunAnalysis NewRun(RunKey key, string data, int marker, int worker, double startMs, WindowSource source)
        {
            var run = new RunAnalysis { Key = key, Data = data, MarkerThreadId = marker, WorkerThreadId = worker, StartMs = startMs, EndMs = startMs, Source = source };
            if (options.Includes(key.Serializer)) analysis.Runs.Add(run);
            // Runs are strictly sequential (the benchmark's handshake), so a new window closes any stale one.
            if (_open is not null && _open.EndMs <= _open.StartMs) _open.EndMs = startMs;
            _open = options.Includes(key.Serializer) ? run : null;
            _openMarker = marker;
            return run;
        }

        private void OnSample(TraceEvent e)
        {
            _samples++;
            var weight = _weigher.Weigh(e.ThreadID, e.TimeStampRelativeMSec);
            if (!IsManagedSample(e) || RunOf(e) is not { } run) return;
            run.CpuMs += weight;
            run.Samples++;
            if (stacks is null) return;
            var stack = e.CallStackIndex();
            if (stacks.LeafUnresolved(stack)) _unresolvedSamples++;
            var tag = stacks.Tag(stack);
            run.Tags[tag] = run.Tags.GetValueOrDefault(tag) + weight;
            if (options.CollectHotMethods) AddHotMethods(run, stack, weight);
        }

        private void AddHotMethods(RunAnalysis run, CallStackIndex stack, double weight)
        {
            var key = (run.Key.Serializer, run.Key.Operation);
            if (!analysis.HotMethods.TryGetValue(key, out var methods)) analysis.HotMethods[key] = methods = new(StringComparer.Ordinal);
            var frames = stacks!.Frames(stack);
            var seen = new HashSet<string>(StringComparer.Ordinal);
            // EventPipe samples stop threads at GC safe points, so a GC poll helper is often the leaf; the method
            // that polled is the one doing the work.
            var leaf = 0;
            while (leaf < frames.Count - 1 && frames[leaf].Method.Contains("PollGC", StringComparison.Ordinal)) leaf++;
            for (var i = leaf; i < frames.Count; i++)
            {
                var name = StackResolver.Display(frames[i]);
                if (!seen.Add(name)) continue; // recursion counts once per sample
                var (ex, inc) = methods.GetValueOrDefault(name);
                methods[name] = (ex + (i == leaf ? weight : 0), inc + weight);
            }
        }

        /// <summary>
        /// Other threads count only while they run the benchmark's measured calls (--threads workers): idle
        /// thread-pool spinning or a progress callback during the window is not the serializer's cost.
        /// </summary>
        private bool IsMeasuredWork(CallStackIndex stack)
        {
            if (stacks is null || stack == CallStackIndex.Invalid) return false;
            if (_measuredByStack.TryGetValue(stack, out var measured)) return measured;
            measured = stacks.Frames(stack).Any(f => MeasuredFrames.Any(m => f.Method.Contains(m, StringComparison.Ordinal)));
            _measuredByStack[stack] = measured;
            return measured;
        }

        private static bool IsManagedSample(TraceEvent e)
        {
            var type = e.PayloadValue(0);
            return type switch
            {
                string s => s == "Managed",
                null => true,
                _ => Convert.ToInt32(type, System.Globalization.CultureInfo.InvariantCulture) == 2,
            };
        }

        private string? MarkerMethodOf(CallStackIndex stack)
        {
            if (stacks is null || stack == CallStackIndex.Invalid) return null;
            if (_markerMethodByStack.TryGetValue(stack, out var m)) return m;
            m = null;
            foreach (var f in stacks.Frames(stack))
            {
                if (!f.Method.Contains("MarkerThread", StringComparison.Ordinal)) continue;
                m = MarkerMethods.FirstOrDefault(name => f.Method.Contains("." + name + "(", StringComparison.Ordinal));
                if (m is not null) break;
            }
            _markerMethodByStack[stack] = m;
            return m;
        }

        private static string OperationOf(string? markerMethod) => markerMethod switch
        {
            "SerializeDuration" => "serialize",
            "DeserializeDuration" => "deserialize",
            "FirstCallDuration" => "firstcall",
            _ => "other",
        };

        private static string Str(TraceEvent e, string field) => e.PayloadByName(field)?.ToString() ?? "";

        private static int Int(TraceEvent e, string field) =>
            e.PayloadByName(field) is { } v ? Convert.ToInt32(v, System.Globalization.CultureInfo.InvariantCulture) : 0;

        public void Finish(TraceLogEventSource source)
        {
            if (_open is not null && _open.EndMs <= _open.StartMs)
            {
                _open.EndMs = source.SessionEndTimeRelativeMSec;
                analysis.Warnings.Add($"run {Describe(_open.Key)} never ended (trace cut short): its window runs to the end of the trace");
            }
            AssignGcs(source);
            var trace = analysis.Trace;
            trace.Events = _events;
            trace.DurationMs = source.SessionDuration.TotalMilliseconds;
            trace.EventsLost = log.EventsLost;
            trace.ObservedSampleIntervalMs = _weigher.ObservedIntervalMs;
            trace.UnresolvedSampleShare = _samples == 0 ? 0 : (double)_unresolvedSamples / _samples;
            var process = log.Processes.FirstOrDefault(p => p.ProcessID > 0);
            if (process is not null) { trace.ProcessName = process.Name; trace.ProcessId = process.ProcessID; }
            trace.RuntimeVersion = source.Processes().Select(p => p.LoadedDotNetRuntime()?.RuntimeVersion).FirstOrDefault(v => !string.IsNullOrEmpty(v));

            if (!_sawRunEvents && !_sawWaits) analysis.Warnings.Add("no run events and no WaitHandle events: this trace was not recorded with the run EventSource or the WaitHandle keyword; nothing to attribute");
            else if (!_sawRunEvents) analysis.Warnings.Add($"no {RunEvents.ProviderName} events: runs found from the marker thread's waits only, unnamed");
            else if (!_sawWaits) analysis.Warnings.Add("no WaitHandle events (keyword 0x40000000000, .NET 9+): run windows come from RunStart/RunStop events");
            if (_samples == 0) analysis.Warnings.Add("no CPU samples in this trace (profile without SampleProfiler): CPU and tag columns are empty");
            if (!trace.HasRundown) analysis.Warnings.Add("no rundown in this trace (the process was killed?): methods jitted before tracing or never unloaded may be unresolved");
            if (trace.UnresolvedSampleShare > 0.05) analysis.Warnings.Add($"{trace.UnresolvedSampleShare:P0} of samples end in unresolved frames; they are grouped by module as 'module!?'");
            if (trace.EventsLost > 0) analysis.Warnings.Add($"{trace.EventsLost:N0} events were lost while recording: counts may be low");

            foreach (var run in analysis.Runs)
            {
                if (run.StopwatchMs is { } sw && run.Source == WindowSource.MarkerWait && Math.Abs(run.DurationMs - sw) > 1.0)
                    analysis.Warnings.Add($"run {Describe(run.Key)}: marker wait {run.DurationMs:F2} ms vs Stopwatch {sw:F2} ms differ by more than 1 ms");
            }
            MarkWarmups();
        }

        private void AssignGcs(TraceLogEventSource source)
        {
            var runs = analysis.Runs.OrderBy(r => r.StartMs).ToList();
            var starts = runs.Select(r => r.StartMs).ToArray();
            foreach (var process in source.Processes())
            {
                var gcs = process.LoadedDotNetRuntime()?.GC?.GCs;
                if (gcs is null) continue;
                foreach (var gc in gcs)
                {
                    var i = Array.BinarySearch(starts, gc.StartRelativeMSec);
                    if (i < 0) i = ~i - 1;
                    if (i < 0 || gc.StartRelativeMSec > runs[i].EndMs) continue;
                    var run = runs[i];
                    switch (gc.Generation)
                    {
                        case 0: run.Gen0++; break;
                        case 1: run.Gen1++; break;
                        default: run.Gen2++; break;
                    }
                    run.GcPauseMs += gc.PauseDurationMSec;
                }
            }
        }

        /// <summary>Run 0 of each (serializer, operation, N) is the warm-up when there are more runs, as in the benchmark.</summary>
        private void MarkWarmups()
        {
            foreach (var g in analysis.Runs.GroupBy(r => (r.Key.Serializer, r.Key.Operation, r.Key.Objects)))
                if (g.Count() > 1)
                    foreach (var r in g) r.IsWarmup = r.Key.Run == 0;
        }

        public static string Describe(RunKey k) => $"{k.Serializer}/{k.Operation}/N={k.Objects}/run {k.Run}";
    }
}
