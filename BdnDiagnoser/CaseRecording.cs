using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Helpers;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Recorder.Launch;
using EtwSerializerProfiler.Recorder.Kernel;

namespace EtwSerializerProfiler.BenchmarkDotNet;

/// <summary>
/// One benchmark's recording in the diagnostic run: `esp record --pid` on BenchmarkDotNet's process, into a trace
/// folder named as BenchmarkDotNet names its traces. <see cref="Start"/> returns once the sessions record (the
/// process waits for the host meanwhile); <see cref="Stop"/> ends them while the process still waits, so the
/// session's rundown names the code compiled before the attach.
/// </summary>
internal sealed class CaseRecording
{
    private readonly CancellationTokenSource _stop = new();
    private readonly StringWriter _output = new();
    private Task<(int ExitCode, TraceFolder? Folder)>? _task;

    public required string BenchmarkName { get; init; }
    public required string FolderPath { get; init; }
    public int ExitCode { get; private set; } = -1;
    /// <summary>Why there is no trace, when there is none.</summary>
    public string? Problem { get; private set; }

    /// <summary>Why the trace has no kernel session, when it has none (the manifest's word): said in the log's sampling note.</summary>
    public string? NoKernelReason { get; private set; }

    public static CaseRecording Start(DiagnoserActionParameters parameters, bool kernelSession)
    {
        var recording = new CaseRecording
        {
            BenchmarkName = FullNameProvider.GetBenchmarkName(parameters.BenchmarkCase),
            FolderPath = FolderFor(parameters),
        };
        recording.Begin(parameters.Process.Id, kernelSession);
        return recording;
    }

    private void Begin(int processId, bool kernelSession)
    {
        var recording = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var options = new RecordOptions
        {
            ProcessId = processId, Out = FolderPath, OnRecording = () => recording.TrySetResult(),
            Kernel = kernelSession ? KernelMode.Auto : KernelMode.Off,
            // An iteration counts no throws of its own: every exception event is kept, whatever the rate costs.
            KeepExceptionEvents = true,
        }.Validate();
        // Its progress lines are not BenchmarkDotNet's log; its one-line errors reach Problem through the exit code.
        _task = Task.Run(() => RecordCommand.RunAsync(options, _output, new Progress<string>(_ => { }), _stop.Token));
        // The process waits at BeforeActualRun until this returns: its iterations start traced, or untraced if it failed.
        if (Task.WaitAny([recording.Task, _task], TimeSpan.FromSeconds(60)) != 0)
        {
            Problem = _task.IsFaulted ? _task.Exception!.GetBaseException().ToString() : "the sessions did not start within 60 s";
            _stop.Cancel();
        }
    }

    /// <summary>Ends the recording and waits for its folder (perf's data converted, the manifest written). Idempotent.</summary>
    public void Stop()
    {
        if (_task is null) return;
        _stop.Cancel();
        try
        {
            ExitCode = _task.GetAwaiter().GetResult().ExitCode;
            if (ExitCode != ExitCodes.Ok) Problem ??= $"esp record --pid ended with exit code {ExitCode}: {_output.ToString().Trim()}";
        }
        catch (Exception ex) when (ex is UsageException or IOException or InvalidOperationException or OperationCanceledException)
        {
            Problem ??= ex.Message;
        }
        _task = null;
    }

    /// <summary>
    /// The recording began after the case's BenchmarkStart and its overhead iterations: the manifest names the case,
    /// and carries BenchmarkDotNet's own outliers and overhead, for `esp analyze` to read as the diagnoser did.
    /// </summary>
    public void Describe(HarnessInfo harness)
    {
        var path = Path.Combine(FolderPath, TraceFolderLayout.Manifest);
        if (TraceManifest.TryLoad(path) is not { } manifest) return;
        (manifest with { Harness = harness }).Save(path);
        if (manifest.Kernel is { Status: not KernelSessionInfo.Recorded } kernel)
            NoKernelReason = kernel.Reason == "--kernel off" ? "the diagnoser's kernelSession is off" : kernel.Reason;
    }

    /// <summary>
    /// BenchmarkDotNet's own trace naming (ArtifactFileNameHelper, 0.15.8: internal): the type and method with
    /// parameters, the runtime when the config runs several toolchains, and the time, without an extension.
    /// </summary>
    private static string FolderFor(DiagnoserActionParameters parameters)
    {
        var name = FullNameProvider.GetBenchmarkName(parameters.BenchmarkCase);
        var jobs = parameters.Config.GetJobs().Select(j => j.Environment.Runtime?.Name ?? j.Id).Distinct().Count();
        if (jobs > 1) name += $"-{parameters.BenchmarkCase.Job.Environment.Runtime?.Name ?? parameters.BenchmarkCase.Job.Id}";
        name += "-" + DateTime.Now.ToString("yyyyMMdd-HHmmss", System.Globalization.CultureInfo.InvariantCulture);
        foreach (var c in Path.GetInvalidFileNameChars().Concat("<>:\"")) name = name.Replace(c, '_');
        return Path.Combine(parameters.Config.ArtifactsPath, name);
    }
}
