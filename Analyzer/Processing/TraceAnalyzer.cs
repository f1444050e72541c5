using System.Diagnostics;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Stacks;
using EtwSerializerProfiler.Analyzer.Timeline;
using EtwSerializerProfiler.Common;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using TraceLog = Microsoft.Diagnostics.Tracing.Etlx.TraceLog;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// One pass over a trace: finds each run's window (the marker thread's wait, named by the run EventSource) and
/// charges CPU samples, allocations, exceptions, contention and JIT inside it to that run. GCs and their pauses are
/// counted into the runs during the pass, once the windows they fall in have settled. Events are handled in time
/// order, so only the open run is touched.
/// </summary>
public sealed partial class TraceAnalyzer(AnalyzerOptions options)
{
    private static readonly Guid RundownGuid = new("a669021c-c450-4609-a035-5af59af4df18");
    private static readonly string[] MarkerMethods = [.. RunEvents.MarkerMethods];

    /// <summary>Stops the kernel session's reader when the analysis ends, however it ends (its load may still be running then).</summary>
    private sealed class KernelStop(Task<Kernel.KernelSession?> load) : IDisposable
    {
        public void Dispose()
        {
            if (load.IsCompletedSuccessfully) load.Result?.Dispose();
            else load.ContinueWith(static t => { if (t.IsCompletedSuccessfully) t.Result?.Dispose(); else _ = t.Exception; }, TaskScheduler.Default);
        }
    }

    /// <summary>The marker's run-wait method on a stack, if any (the waits that are run windows).</summary>
    internal static string? MarkerMethodOfFrames(StackTags.StackFrame[] frames)
    {
        foreach (var f in frames)
        {
            if (!RunEvents.IsMarkerMethod(f.Method)) continue;
            if (MarkerMethods.FirstOrDefault(name => f.Method.Contains("." + name + "(", StringComparison.Ordinal)) is { } m) return m;
        }
        return null;
    }

    /// <summary>No rundown, nothing known of why (<see cref="CutRecording.NoRundownWarning"/> names a known cut instead).</summary>
    internal const string NoRundownWarning = "no rundown in this trace (the process was killed?): methods jitted before tracing or never unloaded may be unresolved";

    public TraceAnalysis Analyze(TraceInput input, IProgress<string>? progress = null)
    {
        var clock = Stopwatch.StartNew();
        // The manifest's first read costs System.Text.Json's start (about 0.1 s, most of it JIT, less once
        // TraceManifest.Prepare ran at start-up): on another core, beside the stack tags' load, not before the pass.
        var manifestTask = Task.Run(() => Common.TraceManifest.TryParse(input.ManifestBytes));
        // The exception sessions' files (a recording's throws without stacks, and a sample with them), read beside the
        // stack tags' load: their first TraceEvent pass pays its start, on another core. Whether the recorder stopped
        // them early is asked once they are read.
        var exceptionFilesTask = Task.Run(() => ExceptionFiles.Read(input, () => manifestTask.GetAwaiter().GetResult()?.ExceptionsStoppedAtSeconds is not null));
        // --symbols mistakes (a missing folder, no perf.data, no perf) cost one line before the long pass, not after it.
        var symbols = Symbols.NativeSymbols.Prepare(input, options);
        var stackTags = StackTagSources.Resolve(options, input.StackTagsPath, DefaultStackTagsPath());
        foreach (var file in stackTags.All) FileReads.Count(file);
        var tags = stackTags.Load();
        var matcher = tags is null ? null : new StackTagMatcher(tags);
        var analysis = NewAnalysis(input, tags);

        // The kernel session needs nothing from the EventPipe pass to be read: read it beside the pass (2 cores).
        var kernelWarnings = new List<string>();
        if (symbols?.Useless is { } useless) kernelWarnings.Add(useless);
        if (symbols is { Useless: null })
            progress?.Report($"naming native frames again beside the EventPipe trace: perf script on {Common.TraceFolderLayout.KernelData} with debug files for {symbols.Describe()}...");
        else if (input.KernelScriptPath is { } script && options.UseKernelSession)
            progress?.Report($"reading the kernel session ({new FileInfo(script).Length / 1048576.0:F1} MB) beside the EventPipe trace...");
        else if (input.KernelDataPath is { } data && options.UseKernelSession && input.Format == TraceFormat.NetTrace)
            progress?.Report($"converting {Path.GetFileName(data)} left without its text ({new FileInfo(data).Length / 1048576.0:F1} MB, perf script) beside the EventPipe trace...");
        var kernelTask = Task.Run(() => Kernel.KernelSessionAnalysis.Load(input, options, kernelWarnings, progress: null, symbols));
        // results.json is read beside the pass too: a long one is tens of milliseconds the pass leaves a core free for.
        var resultsTask = Task.Run(() => LoadResults(input));
        // The tracing-cost bootstrap needs results.json alone: it runs beside the pass too, not after it.
        var tracingCostTask = resultsTask.ContinueWith(static t => TracingCostEstimate.From(t.Result.Results), TaskScheduler.Default);
        // The session reads ahead on its own thread: whatever happens here, it is stopped (and the file let go) at the end.
        using var stopKernel = new KernelStop(kernelTask);
        var exceptionFiles = exceptionFilesTask.GetAwaiter().GetResult();
        var manifest = manifestTask.GetAwaiter().GetResult();
        // The lock waits with their stacks, beside a trace recorded without stacks: only when the manifest says the
        // trace has none (a file left from another recording in the same folder is not read), or there is no manifest.
        var stackFile = manifest is null || manifest.StacksOnlyFor is { Count: > 0 } ? StackFile.Read(input) : null;
        using var pass = RawPass(input, analysis, matcher, progress, exceptionFiles, stackFile, manifest?.Harness)
            ?? TraceLogPass(input, analysis = NewAnalysis(input, tags), matcher, progress, exceptionFiles, stackFile, manifest?.Harness);
        var state = pass.State;
        if (pass.Source is Microsoft.Diagnostics.Tracing.EventPipeEventSource) analysis.Trace = analysis.Trace with { Reader = TraceInfo.RawReader };
        var results = resultsTask.GetAwaiter().GetResult();
        var kernel = kernelTask.GetAwaiter().GetResult()?.Named(state.Code);
        // perf died mid-recording (the manifest's kernel.died): the session's end is named by it.
        if (kernel is not null && manifest?.Kernel?.Died is { } died) kernel = kernel with { Died = died };
        analysis.WarningList.AddRange(kernelWarnings);
        if (manifest is { RecorderCpuSeconds: { } recorderCpu, DurationSeconds: { } recorded })
            analysis.Trace = analysis.Trace with { TracerCpu = new TracerCpu(recorded, recorderCpu, manifest.Kernel?.PerfCpuSeconds) };
        // On a virtual machine: time the hypervisor took counts as on-CPU between switches, not on the thread's clock.
        // Said when it reaches 1% of the recording's length: a few ticks of it are the rule on a shared host.
        if (kernel is not null && manifest?.Kernel?.HostStealMs is { } stolen)
            analysis.Trace = analysis.Trace with { HostStealMs = stolen };
        if (analysis.Trace.HostStealMs is > 0 and var steal && steal >= 10 * manifest?.DurationSeconds)
            analysis.WarningList.Add(FormattableString.Invariant($"the hypervisor took {steal:N0} ms of CPU from this machine (steal) while the kernel session recorded: on-CPU time from context switches counts it where it hit the recorded threads, the thread CPU clock does not, so a run's CPU can read up to that much high"));
        if (manifest?.StacksOnlyFor is { Count: > 0 } && input.StacksPath is null)
            analysis.WarningList.Add($"lock waits: the main trace has no stacks and {Common.TraceFolderLayout.StacksTrace}, which holds them, is missing: none were read");
        var cutShort = manifest?.Incomplete == true || (input.ManifestPath is null && input.KernelDataPath is not null);
        state.Finish(new PassEnd(pass.Source, pass.Facts, kernel, input.ManifestBytes is { } manifestBytes ? Input.RecordedProviders.Parse(manifestBytes, Path.GetFileName(input.TracePath)) : null, cutShort));
        RefuseUnreadable(input, analysis);
        // A recording cut by a full disk (or a failed write): say where its data stops (manifest "cut").
        if (manifest?.Cut is { } cut) analysis.WarningList.Add(cut.Describe());
        JoinInProcessResults(results, analysis);
        var killed = CutRecording.Warning(input, analysis);
        if (killed is not null) analysis.WarningList.Insert(0, killed);
        // No rundown in a recording known to be cut: the warning names the cut rather than guess at a kill.
        if (analysis.WarningList.IndexOf(NoRundownWarning) is >= 0 and var at && CutRecording.NoRundownWarning(manifest, killed is not null) is { } named)
            analysis.WarningList[at] = named;
        if (kernel is not null) Kernel.KernelSessionAnalysis.Apply(kernel, analysis);
        if (matcher is not null) StackTagUsage.Report(matcher, stackTags, analysis);
        if (options.Serializers.Count > 0 && analysis.Runs.Count == 0)
            analysis.WarningList.Add($"no runs of {string.Join(", ", options.Serializers)} in this trace"
                + (state.Windows.Skipped.Count > 0 ? $"; it has runs of {string.Join(", ", state.Windows.Skipped)}" : ""));

        // Every stage is done: the model is frozen, and findings read the same figures every report shows.
        var frozen = analysis.Freeze();
        frozen = frozen with { TracingCost = tracingCostTask.GetAwaiter().GetResult(), BenchmarkDotNetSummary = Harness.BdnSummaryReader.Of(frozen) };
        frozen = frozen with { Findings = Findings.FindingEngine.Detect(frozen) };
        return frozen with { Trace = frozen.Trace with { AnalysisSeconds = clock.Elapsed.TotalSeconds } };
    }

    private AnalysisDraft NewAnalysis(TraceInput input, StackTagFile? tags)
    {
        var analysis = new AnalysisDraft
        {
            // What happened when, for a time line: kept from the start, as the stages mark it.
            Marks = options.KeepMarks ? new() : null,
            Trace = new TraceInfo
            {
                Path = input.DisplayName,
                Format = input.Format == TraceFormat.NetTrace ? input.NetPerf ? "netperf (EventPipe, .NET Core 2.1)" : "nettrace (EventPipe)" : "etl (ETW)",
                SizeBytes = new FileInfo(input.TracePath).Length,
                StackTagsFile = tags?.SourceName,
                ResultsFile = input.ResultsPath,
            },
        };
        if (tags is null) analysis.WarningList.Add("no stack tags file found: tag columns are empty (pass --stacktags FILE)");
        return analysis;
    }

    /// <summary>A finished pass over the trace's events, with what must stay open until <see cref="PassState.Finish"/>.</summary>
    private sealed class Pass(PassState state, TraceEventDispatcher source, TraceFacts facts, IDisposable owner) : IDisposable
    {
        public PassState State => state;
        public TraceEventDispatcher Source => source;
        public TraceFacts Facts => facts;
        public void Dispose() => owner.Dispose();
    }

    /// <summary>
    /// Through TraceLog: an ETW trace (TraceEvent's own reader), or an EventPipe trace the raw pass would not read
    /// alike, converted to .etlx (EtlxCache: cached by content, the conversion's warnings kept with it).
    /// </summary>
    private Pass TraceLogPass(TraceInput input, AnalysisDraft analysis, StackTagMatcher? matcher, IProgress<string>? progress, ExceptionFiles? exceptionFiles, StackFile? stackFile, Common.HarnessInfo? harness)
    {
        var etlx = OpenTraceLog(input, analysis, progress);
        try
        {
            var log = etlx.Log;
            var facts = new TraceLogFacts(log);
            var state = new PassState(analysis, facts, new TraceLogStacks(log, matcher), OpenSources(input, log), options, progress, Stages, new PassFiles(exceptionFiles, stackFile, harness));
            var source = log.Events.GetSource();
            state.Subscribe(source);
            progress?.Report($"analyzing {log.EventCount:N0} events...");
            TracePass.ProcessReadable(source, analysis);
            state.CodeKnown();
            return new Pass(state, source, facts, etlx);
        }
        catch
        {
            etlx.Dispose();
            throw;
        }
    }

    /// <summary>
    /// A trace whose reader gave up before any run or thread activity has nothing valid to keep: that is bad input
    /// (exit 3, one line), not an empty analysis with exit 0. A damaged trace with anything readable is analyzed.
    /// </summary>
    private static void RefuseUnreadable(TraceInput input, AnalysisDraft analysis)
    {
        if (!analysis.Trace.Truncated || analysis.Runs.Count > 0 || analysis.Threads.Count > 0) return;
        throw new BadInputException($"{Path.GetFileName(input.TracePath)}: cannot read trace: it ends after {analysis.Trace.Events:N0} event(s), before any thread's activity; the file is corrupt or truncated");
    }

    public static string? DefaultStackTagsPath()
    {
        var p = Path.Combine(AppContext.BaseDirectory, TraceFolderLayout.StackTagsFolder, TraceFolderLayout.StackTags);
        return File.Exists(p) ? p : null;
    }

    /// <summary>
    /// The CPU sources a trace can take its samples from, in order of preference (<see cref="Sources.CpuSources.Default"/>);
    /// a test registers its own here.
    /// </summary>
    internal IReadOnlyList<Sources.CpuSourceFactory> CpuSources { get; init; } = Sources.CpuSources.Default;

    /// <summary>The collectors the pass runs (<see cref="PassStages.Default"/>); a test registers its own here.</summary>
    internal IReadOnlyList<PassStageFactory> Stages { get; init; } = PassStages.Default;

    /// <summary>What differs between the trace's sources, chosen once as it is opened (TraceLog's log, or null for a raw pass).</summary>
    private Sources.TraceSources OpenSources(TraceInput input, TraceLog? log) => Sources.TraceSources.Open(new Sources.TraceOpening(input, log), CpuSources);

    /// <summary>The trace's .etlx (EtlxCache: validated by content, the conversion's warnings kept with it).</summary>
    internal EtlxLease OpenTraceLog(TraceInput input, AnalysisDraft analysis, IProgress<string>? progress)
    {
        if (input.Format == TraceFormat.Etl) return new EtlxLease(OpenEtl(input, progress));
        var lease = EtlxCache.Open(input.TracePath, options.CacheEtlx, progress);
        if (lease.Truncated) analysis.Trace = analysis.Trace with { Truncated = true };
        // The conversion's warnings, each said once whatever the analysis already holds.
        analysis.WarningList.AddRange(lease.Warnings.Where(w => !analysis.Warnings.Contains(w)));
        return lease;
    }

    /// <summary>
    /// ETW traces go through TraceEvent's own ETL reader, which exists only on Windows; the .etlx it writes next to
    /// the .etl is reused while it is newer. From there on .etl and .nettrace share one analysis pass.
    /// </summary>
    private static TraceLog OpenEtl(TraceInput input, IProgress<string>? progress)
    {
        if (!OperatingSystem.IsWindows())
            throw new BadInputException($"{input.TracePath}: .etl analysis needs Windows (TraceEvent reads ETW files only there)");
        progress?.Report($"opening {input.TracePath} ({new FileInfo(input.TracePath).Length / 1048576.0:F1} MB; the first time converts it to .etlx)...");
        try
        {
            return TraceLog.OpenOrConvert(input.TracePath, new TraceLogOptions { ContinueOnError = true, ConversionLog = new StringWriter() });
        }
        catch (Exception ex) when (ex is not BadInputException)
        {
            throw new BadInputException($"{input.TracePath}: cannot read ETW trace ({ex.GetType().Name}: {ex.Message})", ex);
        }
    }

    /// <summary>The benchmark's results.json, or why it could not be read (said once the runs are known).</summary>
    private static (BenchmarkResults? Results, string? Error) LoadResults(TraceInput input)
    {
        if (input.ResultsPath is null) return (null, null);
        try
        {
            FileReads.Count(input.ResultsPath);
            return (BenchmarkResults.Load(input.ResultsPath), null);
        }
        catch (Exception ex) when (ex is System.Text.Json.JsonException or InvalidDataException or IOException)
        {
            return (null, $"{input.ResultsPath}: unreadable benchmark results ({ex.Message}); in-process columns omitted");
        }
    }

    private static void JoinInProcessResults((BenchmarkResults? Results, string? Error) loaded, AnalysisDraft analysis)
    {
        if (loaded.Error is { } error) analysis.WarningList.Add(error);
        if (loaded.Results is not { } results) return;
        analysis.InProcess = results;
        if (results.TracingCostProblem is { } problem)
            analysis.WarningList.Add($"tracing cost: the blocks stopped early ({problem}); cases measured before it keep their figures");
        if (results.TracingCostSham == true)
            analysis.WarningList.Add("tracing cost: a sham (--tracing-cost-sham): the traced blocks ran untraced, so the column shows the measurement's own noise and any injected work, not what tracing costs");
        var byKey = results.Runs.GroupBy(r => new RunKey(r.Serializer, r.Operation, r.Objects, r.Run)).ToDictionary(g => g.Key, g => g.Last());
        foreach (var run in analysis.Runs)
            if (byKey.TryGetValue(run.Key, out var r)) run.InProcess = r;
    }

    /// <summary>What the pass's end needs that its events did not give.</summary>
    /// <param name="Recorded">The trace folder's manifest, if any: what the session enabled.</param>
    /// <param name="CutShort">The recording was cut (the manifest says so, or there is none beside perf's data): its last case may have warm-up runs only.</param>
    private sealed record PassEnd(TraceEventDispatcher Source, TraceFacts Facts, Kernel.KernelSession? Kernel, Input.RecordedProviders? Recorded, bool CutShort);

    /// <summary>What a recording keeps beside its trace, read before the pass: the exception and stacks files, the harness's word.</summary>
    private sealed record PassFiles(ExceptionFiles? Exceptions, StackFile? Stacks, Common.HarnessInfo? Harness);

    /// <summary>Mutable state of one pass; kept apart from the analyzer so the analyzer itself is reusable.</summary>
    private sealed partial class PassState(AnalysisDraft analysis, TraceFacts facts, EventStacks stacks, Sources.TraceSources sources, AnalyzerOptions options, IProgress<string>? progress,
        IReadOnlyList<PassStageFactory> registered, PassFiles files)
        : IPass
    {
        /// <summary>
        /// The stages, in the order they subscribe (and see each event): the files beside the trace up to the event, the
        /// run windows, the CPU sources' samples, the event count, the code map, the registered collectors, the runtime work their spans join, the
        /// runtime's suspensions and GCs.
        /// </summary>
        private readonly IReadOnlyList<IPassStage> _stages =
            [new SideFilesStage(analysis, stacks, files.Exceptions, files.Stacks), new RunWindowsStage(sources.Waits, files.Harness),
            new CpuStage(sources.Cpu, progress),
            new ProgressStage(facts.EventCount, progress), new ManagedCodeStage(), .. registered.Select(make => make()), new RuntimeWorkStage(), new RuntimeStage()];
        public AnalysisDraft Analysis => analysis;
        public EventStacks Stacks => stacks;
        public AnalyzerOptions Options => options;
        public TraceMarksDraft? Marks => analysis.Marks;
        public Sources.IProcessScope Scope => _scope;
        public RunWindows Windows => _windows;
        /// <summary>The managed code map, once the pass is over.</summary>
        public Kernel.ManagedCodeMap Code => Stage<ManagedCodeStage>().Code;
        public void WhenNamed(Action count) => Stage<ManagedCodeStage>().WhenNamed(count);

        public T Stage<T>() where T : IPassStage
        {
            foreach (var stage in _stages)
                if (stage is T found) return found;
            throw new InvalidOperationException($"the pass has no {typeof(T).Name}");
        }

        public StackTagMatcher? Matcher => stacks.Matcher;
        /// <summary>Whose events count: the one process, or on ETW the benchmark's out of the machine.</summary>
        private readonly Sources.IProcessScope _scope = sources.Scope;
        public PassTimeline Timeline { get; } = new();
        /// <summary>The run windows: the open run is what the collectors charge.</summary>
        private readonly RunWindows _windows = new(analysis.RunList, key => Wanted(options, key), Harness.StackTagRunNames.Unnamed);

        public void Subscribe(TraceEventDispatcher source)
        {
            source.AllEvents += OnEvent;
            foreach (var stage in _stages) stage.Subscribe(source, this);
        }

        /// <summary>An ETW trace holds every process on the machine; an EventPipe trace only the recorded one.</summary>
        public bool InProcess(TraceEvent e) => _scope.InProcess(e);

        /// <summary>
        /// The open run, if this event belongs to it: raised on the run's worker thread or one of its crew (RunThread
        /// events, --threads), or on another thread while it executes the benchmark's measured call. Background
        /// tier-1 JIT, thread-pool spinning or the marker itself are not the serializer's cost.
        /// </summary>
        public RunDraft? RunOf(TraceEvent e, int? stack = null)
        {
            if (_windows.ChargeableFor(e.ThreadID) is not { } run) return null;
            if (run.WorkerThreadId == 0 || run.IsRunThread(e.ThreadID)) return run;
            return stacks.IsMeasuredWork(stack ?? stacks.StackOf(e)) ? run : null;
        }

        /// <summary>The same for an event read beside the trace, by its thread and stack (-1: none).</summary>
        public RunDraft? RunOf(int threadId, int stack)
        {
            if (_windows.ChargeableFor(threadId) is not { } run) return null;
            if (run.WorkerThreadId == 0 || run.IsRunThread(threadId)) return run;
            return stacks.IsMeasuredWork(stack) ? run : null;
        }

        private void OnEvent(TraceEvent e)
        {
#pragma warning disable CS0618 // "discouraged": the raw QPC is exactly what puts perf's CLOCK_MONOTONIC on this time line
            Timeline.Clock.Observe(e.TimeStampQPC, e.TimeStampRelativeMSec);
#pragma warning restore CS0618
            if (!analysis.Trace.HasRundown && e.ProviderGuid == RundownGuid) analysis.Trace = analysis.Trace with { HasRundown = true };
        }

        /// <summary>Runs found without names are kept whatever --serializers says until they are named (NameUnnamedRuns, OnBdnBenchmarkStart).</summary>
        private static bool Wanted(AnalyzerOptions options, RunKey key) => options.Includes(key.Serializer) || key.Serializer is Harness.StackTagRunNames.Unnamed or Harness.BdnIterations.CaseNotYetNamed;

        /// <summary>
        /// The end of the pass: the code map is complete (a raw pass reads the rundown last), so stacks are named from
        /// here on. A raw pass's answers given before that (which waits are the marker's, which helper-thread events
        /// are measured work) must hold with every method named, else <see cref="RawPassUnsure"/>.
        /// </summary>
        public void CodeKnown()
        {
            var provisional = stacks.MeasuredAnswers();
            stacks.Code = Code;
            if (stacks.NamedAfterPass && (!Stage<RunWindowsStage>().MarkerAnswersHold() || provisional.Any(p => stacks.IsMeasuredWork(p.Key) != p.Value)))
                throw new RawPassUnsure();
            Stage<SideFilesStage>().CountStacklessExceptions();
            Stage<ManagedCodeStage>().CountNamedSites();
        }

        public void Finish(PassEnd end)
        {
            var (source, kernel) = (end.Source, end.Kernel);
            var windows = Stage<RunWindowsStage>();
            windows.DropUnfinished();
            foreach (var stage in _stages) stage.Finish(this);
            var cpu = Stage<CpuStage>();
            // The kernel session's records are taken chunk by chunk in the charge; the runs' windows and the time line are final here.
            cpu.Charge(kernel);
            FinishWholeTrace(end);
            analysis.Trace = analysis.Trace with
            {
                Events = Stage<ProgressStage>().Events,
                // A trace cut before its last event's header can report an end before its start: no duration then.
                DurationMs = Math.Max(0, source.SessionDuration.TotalMilliseconds),
                EventsLost = end.Facts.EventsLost,
                RuntimeVersion = Stage<RuntimeStage>().Recorded.Version,
            };
            if (_scope.Process(end.Facts) is { } process) analysis.Trace = analysis.Trace with { ProcessName = process.Name, ProcessId = process.Id };
            var trace = analysis.Trace;

            windows.SayHowRunsWereFound();
            if (!trace.HasRundown) analysis.WarningList.Add(NoRundownWarning);
            if (trace.UnresolvedSampleShare > 0.05) analysis.WarningList.Add($"{trace.UnresolvedSampleShare:P0} of samples end in unresolved frames; they are grouped by module as 'module!?'");
            if (trace.EventsLost > 0) analysis.WarningList.Add($"{trace.EventsLost:N0} events were lost while recording: counts may be low");

            windows.CheckAgainstStopwatch();
            cpu.NameUnnamedRuns();
            windows.MarkWarmups(end.CutShort);
            Stage<SideFilesStage>().WarnRunsWithThrowEvents();
            cpu.CollectHotMethods();
        }
    }
}
