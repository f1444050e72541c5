using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Etw;
using EtwSerializerProfiler.Recorder.EventPipe;
using EtwSerializerProfiler.Recorder.Heap;
using EtwSerializerProfiler.Recorder.Kernel;
using EtwSerializerProfiler.Recorder.Profiles;

namespace EtwSerializerProfiler.Recorder.Launch;

/// <summary>`esp record`: one trace folder per invocation, manifest always written once tracing started.</summary>
public static class RecordCommand
{
    public const string BenchmarkAssembly = BenchmarkBuild.Net10Assembly;
    public const string StackTagsSource = TraceFolderLayout.ToolStackTags;

    public static async Task<(int ExitCode, TraceFolder? Folder)> RunAsync(RecordOptions options, TextWriter output, IProgress<string> progress, CancellationToken cancel)
    {
        if (options.ListProfiles) { output.Write(PlainText.Table(ProfilesTable(options.ProfilesFile))); return (ExitCodes.Ok, null); }
        var (profile, sampling, etwPlan) = Resolve(options);
        // --pid: the process must exist and answer before a folder is made (a bad id is one line, exit 2, nothing left).
        await using var attached = options.ProcessId is { } pid ? AttachedRuntime.Open(pid) : null;
        var command = attached is null ? BuildCommand(options, progress, cancel, out var recordsBenchmark) : AttachedCommand(attached, out recordsBenchmark);
        if (options.TracingCost && (etwPlan is not null || !recordsBenchmark))
            throw new UsageException("--tracing-cost measures the benchmark's cases on the EventPipe backend (not --backend etw, not an app of your own)");
        var folder = CreateFolder(options, profile, sampling, etwPlan is not null || (OperatingSystem.IsLinux() && options.Kernel != KernelMode.Off && profile.Kernel is not null), progress);
        command = BenchmarkCommand(options, command, folder, recordsBenchmark);
        // The recording's participants, whose hooks are called in this order (IRecordingParticipant).
        var kernel = etwPlan is null ? KernelSessionFor(options, profile, folder, progress) : null;
        await using var participants = new RecordingParticipants();
        participants.Add(recordsBenchmark ? HeapSnapshotListener.For(options.Benchmark.Heap, folder, progress) : null)?.Start(cancel);
        // ETW asks the benchmark for its rundown just before it exits, while it can still answer (ExitHandshake).
        var exitGate = participants.Add(etwPlan is not null && recordsBenchmark ? new RundownGate() : null);
        var costGate = participants.Add(options.TracingCost ? new TracingCostGate() : null);
        participants.Add(kernel);
        command = participants.WithArguments(command);
        var providers = EventPipeProviders.For(profile, participants.SamplesCpu, options.EventPipeSamples);
        var started = DateTime.UtcNow;
        var outcome = await RecordAsync(options, attached, command, etwPlan, profile, providers, folder, participants, exitGate, costGate, started, progress, cancel).ConfigureAwait(false);
        try
        {
            var resultsNote = RecoverResults(folder, outcome.ChildProcessId);
            var stackTags = CopyStackTags(folder);
            var manifest = await participants.ManifestAsync(BuildManifest(options, profile, providers, command, started, outcome, folder, stackTags)).ConfigureAwait(false);
            if (resultsNote is not null) manifest.Warnings.Add(resultsNote);
            return (Report(outcome, folder, manifest, SaveManifest(manifest, folder, outcome), output), folder);
        }
        catch (IOException) when (outcome.Cut is null && !Directory.Exists(folder.Path))
        {
            // The folder removed after the recording's own look (while the manifest was made): the same one line.
            var gone = Gone(outcome, TraceFolderGone.Reason(folder.Trace)!, started);
            output.WriteLine(CutLine(gone, gone.Cut!, folder, manifestError: null));
            return (ExitCodes.WriteFailed, folder);
        }
    }

    /// <summary>The recording cut because its folder (or trace) is gone: nothing of it is left to keep.</summary>
    private static RecordingOutcome Gone(RecordingOutcome outcome, string reason, DateTime started) => outcome with
    {
        Status = RecordingStatus.WriteFailed,
        Cut = new RecordingCut { Reason = reason, AtSeconds = (DateTime.UtcNow - started).TotalSeconds, AtUtc = DateTime.UtcNow, TraceBytes = outcome.TraceBytes },
    };

    private static (TraceProfile Profile, string? Sampling, EtwSessionPlan? EtwPlan) Resolve(RecordOptions options)
    {
        var linuxKernel = OperatingSystem.IsLinux() && options.Kernel != KernelMode.Off;
        var (profile, sampling) = CpuSampling.Resolve(ProfileCatalog.Get(options.Profile, options.ProfilesFile), options.CpuSampleMs,
            linuxKernel && Hypervisor.Present());
        if (options.KeepExceptionEvents) profile = profile with { Providers = [.. profile.Providers.Select(p => p with { StacklessMaxMBPerSecond = null })] };
        if (options.Backend != Backend.Etw) return (profile, sampling, null);
        if (!OperatingSystem.IsWindows())
            throw new UsageException("--backend etw needs Windows (ETW sessions); use --backend eventpipe on this OS");
        EtwRecorder.EnsureCanRecord();
        return (profile, sampling, EtwSessionPlan.ForRecording(profile, Environment.ProcessId));
    }

    private static TraceFolder CreateFolder(RecordOptions options, TraceProfile profile, string? sampling, bool kernelWanted, IProgress<string> progress)
    {
        // Before any folder exists: a disk that cannot hold a recording is one line (exit 4), a tight one a warning.
        if (DiskSpaceCheck.Check(options.Out ?? "traces", profile, kernelWanted) is { } tight) progress.Report($"warning: {tight}");
        var folder = options.Out is null ? TraceFolder.CreateDefault() : TraceFolder.CreateExplicit(options.Out);
        // Once the recording is sure to start: a refused one stays one line.
        if (sampling is not null && kernelWanted) progress.Report(sampling);
        try { folder.Reserve(DiskSpaceCheck.SessionsReserveBytes, DiskSpaceCheck.ManifestReserveBytes); }
        catch (DiskFullException) { folder.DeleteIfEmpty(); throw; }
        return folder;
    }

    /// <summary>The benchmark's own arguments: results into the folder, --quiet under --analyze, its AppContext switches.</summary>
    private static ChildCommand BenchmarkCommand(RecordOptions options, ChildCommand command, TraceFolder folder, bool recordsBenchmark)
    {
        if (!recordsBenchmark) return command;
        command = command with { Arguments = [.. command.Arguments, BenchmarkArgs.JsonFlag, folder.ResultsJson, BenchmarkArgs.CsvFlag, folder.ResultsCsv] };
        // The analysis that follows has the benchmark's table, in short: its progress and table would be read twice.
        if (options.Analyze && !command.Arguments.Contains(BenchmarkArgs.QuietFlag)) command = command with { Arguments = [.. command.Arguments, BenchmarkArgs.QuietFlag] };
        // .NET Framework has no runtimeconfig.json: the benchmark sets its --appcontext switches itself at startup there.
        var switches = options.Framework == BenchmarkFramework.Net10 ? options.Benchmark.AppContextSwitches : [];
        if (switches.Count == 0) return command;
        var runtimeConfig = Path.Combine(folder.Path, BenchmarkRuntimeConfig.FileName);
        BenchmarkRuntimeConfig.Write(command.Arguments[0], switches, runtimeConfig);
        return command with { Arguments = ["exec", "--runtimeconfig", runtimeConfig, .. command.Arguments] };
    }

    private static async Task<RecordingOutcome> RecordAsync(RecordOptions options, AttachedRuntime? attached, ChildCommand command, EtwSessionPlan? etwPlan, TraceProfile profile,
        IReadOnlyList<Microsoft.Diagnostics.NETCore.Client.EventPipeProvider> providers, TraceFolder folder, RecordingParticipants participants, RundownGate? exitGate,
        TracingCostGate? costGate, DateTime started, IProgress<string> progress, CancellationToken cancel)
    {
        var traceFile = etwPlan is null ? folder.Trace : folder.Etl;
        RecordingOutcome outcome;
        try
        {
            outcome = attached is not null
                ? await EventPipeRecorder.RecordAsync(attached, RecordingClock.Start(), profile, folder.Trace, progress, cancel, options.Duration, participants, providers, null, folder.ReleaseSessionsReserve, options.OnRecording).ConfigureAwait(false)
                : etwPlan is null
                ? await EventPipeRecorder.Default.RecordAsync(command, profile, folder.Trace, progress, cancel, participants, providers, costGate, folder.ReleaseSessionsReserve).ConfigureAwait(false)
                : OperatingSystem.IsWindows()
                    ? await new EtwRecorder().RecordAsync(command, etwPlan, folder, participants, exitGate, progress, cancel).ConfigureAwait(false)
                    : throw new PlatformNotSupportedException("ETW");
        }
        catch (Exception) when (!File.Exists(traceFile) || new FileInfo(traceFile).Length == 0)
        {
            // Nothing was recorded: leave no stray folder or empty file behind, nor the side sessions' files (started
            // first), which a later recording into the same folder would otherwise be read with.
            File.Delete(traceFile);
            if (Directory.Exists(folder.Path))
                foreach (var side in Directory.GetFiles(folder.Path, "*.nettrace").Where(f => TraceFolderLayout.IsSideFile(Path.GetFileName(f)))) File.Delete(side);
            folder.ReleaseReserve();
            folder.DeleteIfEmpty();
            throw;
        }
        finally
        {
            // The room set aside for what follows (the manifest; on a full disk the benchmark's results too).
            folder.ReleaseReserve();
        }

        // The folder removed after the recording ended (while perf's data was converted): nothing is left to keep either.
        if (outcome.Cut is null && TraceFolderGone.Reason(traceFile) is { } gone) outcome = Gone(outcome, gone, started);
        return outcome;
    }

    /// <summary>Writes manifest.json and marks the folder finished; why the manifest could not be written, on a cut trace.</summary>
    private static string? SaveManifest(TraceManifest manifest, TraceFolder folder, RecordingOutcome outcome)
    {
        string? manifestError = null;
        try { manifest.Save(folder.Manifest); }
        catch (IOException ex) when (outcome.Cut is not null)
        {
            manifestError = ex.Message;
            FileCleanup.TryDelete(folder.Manifest);
        }
        try { folder.MarkFinished(); } catch (IOException) when (outcome.Cut is not null) { } // the folder removed
        return manifestError;
    }

    /// <summary>What the recording says when it ends, and its exit code.</summary>
    private static int Report(RecordingOutcome outcome, TraceFolder folder, TraceManifest manifest, string? manifestError, TextWriter output)
    {
        if (outcome.Cut is { } cut)
        {
            // One line, whatever else went wrong: the disk is full (or a write failed), where, and what is kept.
            output.WriteLine(CutLine(outcome, cut, folder, manifestError));
            return outcome.Status == RecordingStatus.DiskFull ? ExitCodes.DiskFull : ExitCodes.WriteFailed;
        }
        // The recorded process killed or crashed: one line that says so (the summary below has the rest).
        if (outcome.Status == RecordingStatus.ChildCrashed) output.WriteLine(CrashLine(outcome, folder));

        var traceFile = manifest.Backend == EtwManifest.Backend ? folder.Etl : folder.Trace;
        output.WriteLine($"Trace folder: {folder.Path}");
        output.WriteLine($"  {Path.GetFileName(traceFile)}: {outcome.TraceBytes / 1024.0 / 1024.0:F1} MB in {outcome.Duration.TotalSeconds:F1} s, status {outcome.Status} ({ProcessLine(outcome)})");
        if (manifest.Kernel is { } kernelInfo) output.WriteLine(DescribeKernel(kernelInfo));
        foreach (var w in outcome.Warnings) output.WriteLine($"  warning: {w}");
        foreach (var h in manifest.HeapSnapshots ?? []) output.WriteLine(HeapSnapshotListener.Describe(h));
        return outcome.Status switch
        {
            RecordingStatus.Complete when manifest.HeapSnapshots?.Any(h => h.Status != HeapSnapshotStatus.Taken) == true => ExitCodes.Failed,
            RecordingStatus.Complete => ExitCodes.Ok,
            RecordingStatus.Interrupted => ExitCodes.Interrupted,
            _ => ExitCodes.Failed,
        };
    }

    /// <summary>
    /// Linux, EventPipe backend: the perf kernel session unless --kernel off. Where perf is missing or refused, the
    /// recording goes on EventPipe-only and the reason is printed and kept in the manifest.
    /// </summary>
    private static IRecordingParticipant? KernelSessionFor(RecordOptions options, TraceProfile profile, TraceFolder folder, IProgress<string> progress)
    {
        if (!OperatingSystem.IsLinux())
        {
            if (options.Kernel == KernelMode.Perf) throw new UsageException("--kernel perf needs Linux (perf_events); on Windows use --backend etw for the kernel session");
            return null;
        }
        var (session, why) = LinuxKernelSession.For(options.Kernel, profile, folder, progress);
        if (why is not null && options.Kernel != KernelMode.Off) progress.Report($"kernel session not recorded: {why.Reason}");
        return why is null ? session : new KernelSessionOff(why);
    }

    private static string ProcessLine(RecordingOutcome outcome) => outcome.AttachedExited switch
    {
        null => $"child exit code {outcome.ChildExitCode}",
        true => $"attached to process {outcome.ChildProcessId}, which exited while recorded",
        false => $"attached to process {outcome.ChildProcessId}, which runs on",
    };

    /// <summary>What the manifest says was recorded when esp attached: the process's own command line, as Linux shows it.</summary>
    private static ChildCommand AttachedCommand(AttachedRuntime attached, out bool recordsBenchmark)
    {
        recordsBenchmark = false;
        string[] args = [];
        try
        {
            if (OperatingSystem.IsLinux()) args = File.ReadAllText($"/proc/{attached.Id}/cmdline").Split('\0', StringSplitOptions.RemoveEmptyEntries);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { } // named by its id alone
        return args.Length == 0 ? new ChildCommand(attached.Display, [], new Dictionary<string, string>()) : new ChildCommand(args[0], args[1..], new Dictionary<string, string>());
    }

    private static string DescribeKernel(KernelSessionInfo k) => k.Status == KernelSessionInfo.Recorded
        ? $"  {k.ScriptFile ?? k.DataFile}: kernel session ({k.Tool}){(k.Missing.Count > 0 ? "; missing: " + string.Join("; ", k.Missing) : "")}{(k.LostChunks > 0 ? $"; perf lost {k.LostChunks} chunks" : "")}{DescribeKernelDeath(k)}"
        : $"  kernel session: not recorded ({k.Reason})";

    private static string DescribeKernelDeath(KernelSessionInfo k) => k.Died is { } d ? $"; {d.Describe()}" : "";

    public static TextTable ProfilesTable(string? path = null)
    {
        var table = new TextTable($"Trace profiles ({path ?? "Profiles/profiles.json"})", ["Profile", "CPU sampling", "Providers", "Description"]);
        foreach (var p in ProfileCatalog.Load(path))
            table.AddRow(p.Name, p.CpuSamplingMs > 0 ? $"{p.CpuSamplingMs} ms{(p.VirtualMachineCpuSamplingMs is { } vm && vm != p.CpuSamplingMs ? $" ({vm} ms on a Linux VM)" : "")}" : "off",
                // Beside a kernel session (the Linux default) the kernel samples the CPU and these providers stay off.
                string.Join("; ", p.Providers.Select(x => (x.Keywords.Count > 0 ? $"{x.Name}({string.Join(",", x.Keywords)})" : x.Name)
                    + (x.ReplacedByKernelSampling ? " (off beside a kernel session)" : ""))),
                p.Description);
        return table;
    }

    private static ChildCommand BuildCommand(RecordOptions options, IProgress<string> progress, CancellationToken cancel, out bool recordsBenchmark)
    {
        recordsBenchmark = options.Command.Count == 0;
        if (!recordsBenchmark) return new ChildCommand(options.Command[0], options.Command.Skip(1).ToList(), options.Environment);

        if (options.Benchmark.RecorderOwned.FirstOrDefault() is { } reserved)
            throw new UsageException(reserved is BenchmarkArgs.JsonFlag or BenchmarkArgs.CsvFlag
                ? $"record: {reserved} is set by the recorder (results go into the trace folder)"
                : $"record: {reserved} is set by the recorder");
        if (options.Benchmark.FirstCall && options.Benchmark.Serializers.Count != 1)
            throw new UsageException("record --test firstcall measures one serializer per fresh process: add --serializers NAME (one name) and record once per serializer");
        // Another runtime: the same benchmark published self-contained for it, started like the .NET Framework build (directly).
        if (options.Runtime is { IsToolRuntime: false } runtime)
            return new ChildCommand(RuntimePublish.Executable(runtime, progress, cancel), options.BenchmarkArgs, options.Environment);
        var benchmark = BenchmarkBuild.PathFor(options.Framework, AppContext.BaseDirectory);
        if (!File.Exists(benchmark)) throw new UsageException($"benchmark not found next to the tool: {benchmark} (build the solution first)");
        return BenchmarkBuild.Command(options.Framework, benchmark, options.BenchmarkArgs, options.Environment);
    }

    /// <summary>The runtime the benchmark reported it ran on (results.json, e.g. ".NET 8.0.31"): the recorded process's own word.</summary>
    private static string? BenchmarkRuntimeOf(TraceFolder folder)
    {
        try
        {
            return File.Exists(folder.ResultsJson) ? BenchmarkResults.Load(folder.ResultsJson).Runtime : null;
        }
        catch (Exception ex) when (ex is IOException or System.Text.Json.JsonException or InvalidDataException)
        {
            return null;
        }
    }

    private static string? CopyStackTags(TraceFolder folder)
    {
        var source = Path.Combine(AppContext.BaseDirectory, StackTagsSource);
        if (!File.Exists(source)) return null;
        try
        {
            File.Copy(source, folder.StackTags, overwrite: true);
            return TraceFolderLayout.StackTags;
        }
        catch (IOException ex) when (TraceStreamWriter.IsDiskFull(ex) || !Directory.Exists(folder.Path))
        {
            // A full disk: the analyzer falls back to its own copy of the built-in stack tags. A removed folder: nothing to keep.
            FileCleanup.TryDelete(folder.StackTags);
            return null;
        }
    }

    /// <summary>
    /// The benchmark saves its results to the temp folder when the trace folder's disk is full
    /// (BenchmarkResults.SaveOrFallBack): moved into the folder now that the reserve is free. A note when they are not where they belong.
    /// </summary>
    private static string? RecoverResults(TraceFolder folder, int childProcessId)
    {
        if (childProcessId <= 0) return null;
        var fallback = BenchmarkResults.FallbackPath(childProcessId);
        if (!File.Exists(fallback)) return null;
        try
        {
            File.Copy(fallback, folder.ResultsJson, overwrite: true);
            File.Delete(fallback);
            return $"the benchmark could not write {TraceFolderLayout.ResultsJson} (disk full); the recorder moved it there from the temp folder";
        }
        catch (IOException ex)
        {
            FileCleanup.TryDelete(folder.ResultsJson);
            return $"the benchmark's results are in {fallback}: they could not be moved into the folder ({ex.Message})";
        }
    }

    private static string CrashLine(RecordingOutcome outcome, TraceFolder folder) =>
        $"esp record: the recorded process {outcome.ChildProcessId} {UnixExitStatus.InWords(outcome.ChildExitCode ?? -1)} {outcome.Duration.TotalSeconds:F1} s into the recording: "
        + $"sessions stopped, what it had recorded is kept in {folder.Path} (manifest status {outcome.Status}; "
        + (File.Exists(folder.ResultsJson) ? $"{TraceFolderLayout.ResultsJson} kept" : $"no {TraceFolderLayout.ResultsJson}") + ")";

    private static string CutLine(RecordingOutcome outcome, RecordingCut cut, TraceFolder folder, string? manifestError)
    {
        // The folder gone, or the trace the cut was for (rm -rf takes the files before the folder): not a write that failed.
        if (TraceFolderGone.Reason(folder.Trace) is { } gone && (!Directory.Exists(folder.Path) || gone == cut.Reason))
        {
            // Nothing of the recording is left to keep: say so, and where the benchmark's own results went if they survived.
            var saved = BenchmarkResults.FallbackPath(outcome.ChildProcessId);
            return $"esp record: {cut.Reason} {cut.AtSeconds:F1} s into the recording: sessions stopped, the recorded process stopped, nothing is kept"
                + (File.Exists(saved) ? $" (the benchmark's results are in {saved})" : "") + "; record again";
        }
        var mb = cut.TraceBytes / 1048576.0;
        var what = outcome.Status == RecordingStatus.DiskFull
            ? $"the disk is full at {folder.Path} after {mb:F1} MB of trace in {cut.AtSeconds:F1} s"
            : $"writing the trace failed at {folder.Path} after {mb:F1} MB in {cut.AtSeconds:F1} s ({cut.Reason})";
        var rate = cut.AtSeconds > 0 ? $" (about {mb / cut.AtSeconds:F1} MB/s)" : "";
        var fallback = BenchmarkResults.FallbackPath(outcome.ChildProcessId);
        var results = File.Exists(folder.ResultsJson) ? $"{TraceFolderLayout.ResultsJson} kept"
            : File.Exists(fallback) ? $"the benchmark's results are in {fallback}" : $"no {TraceFolderLayout.ResultsJson}";
        var manifest = manifestError is null ? $"manifest status {outcome.Status}" : $"the manifest could not be written either ({manifestError})";
        return $"esp record: {what}{rate}: sessions stopped, what was written is kept ({manifest}; {results}); free some space or record with --out elsewhere";
    }

    /// <summary>manifest.json's recorderVersion: this assembly's version (Directory.Build.props).</summary>
    private static string RecorderVersion => typeof(RecordCommand).Assembly.GetName().Version?.ToString(3) ?? "0.0.0";

    private static TraceManifest BuildManifest(RecordOptions options, TraceProfile profile, IReadOnlyList<Microsoft.Diagnostics.NETCore.Client.EventPipeProvider> providers, ChildCommand command, DateTime started, RecordingOutcome outcome, TraceFolder folder, string? stackTags)
    {
        return new TraceManifest
        {
            RecorderVersion = RecorderVersion,
            Backend = TraceManifest.EventPipeBackend,
            Profile = profile.Name,
            ProfileDescription = profile.Description,
            // The stackless keywords were enabled too, in sessions of their own (ExceptionSessions).
            Providers = EventPipeProviders.WithStackless(providers, EventPipeProviders.Stackless(profile)).Select(p => new ManifestProvider(
                p.Name, $"0x{p.Keywords:X}", p.EventLevel.ToString(),
                profile.Providers.First(x => x.Name == p.Name).Keywords)).ToList(),
            CommandLine = command.Display,
            Environment = command.Environment.Count == 0 ? null : new Dictionary<string, string>(command.Environment),
            RecorderRuntime = System.Runtime.InteropServices.RuntimeInformation.FrameworkDescription,
            BenchmarkRuntime = BenchmarkRuntimeOf(folder),
            RequestedRuntime = options.Runtime?.Requested,
            OperatingSystem = $"{System.Runtime.InteropServices.RuntimeInformation.OSDescription} {System.Runtime.InteropServices.RuntimeInformation.OSArchitecture}",
            StartTimeUtc = started,
            DurationSeconds = outcome.Duration.TotalSeconds,
            RecorderCpuSeconds = outcome.RecorderCpu is { } cpu ? Math.Round(cpu.TotalSeconds, 3) : null,
            ChildProcessId = outcome.ChildProcessId,
            ChildExitCode = outcome.ChildExitCode,
            Attached = outcome.AttachedExited is { } exited ? new AttachInfo(exited) : null,
            Status = outcome.Status,
            Incomplete = outcome.Incomplete || outcome.Status == RecordingStatus.ChildFailed,
            Cut = outcome.Cut,
            TraceBytes = outcome.TraceBytes,
            TraceFile = TraceFolderLayout.Trace,
            ResultsFile = File.Exists(folder.ResultsJson) ? TraceFolderLayout.ResultsJson : null,
            StackTagsFile = stackTags,
            Warnings = outcome.Warnings,
        };
    }
}
