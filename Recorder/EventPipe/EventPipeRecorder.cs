using System.ComponentModel;
using System.Diagnostics;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Processes;
using EtwSerializerProfiler.Recorder.Profiles;
using Microsoft.Diagnostics.NETCore.Client;

namespace EtwSerializerProfiler.Recorder.EventPipe;

/// <summary>
/// Records a .NET process's EventPipe sessions into a trace folder: a child esp starts (<see cref="LaunchedRuntime"/>,
/// from its first instruction) or a process that already runs (<see cref="AttachedRuntime"/>). The recording's
/// participants (the Linux kernel session, then the side sessions: <see cref="EventPipeSideSessions"/>) start on the
/// same process before the runtime resumes.
/// </summary>
public sealed class EventPipeRecorder(TimeSpan connectTimeout)
{
    public const int CircularBufferMB = 256;

    public static EventPipeRecorder Default { get; } = new(TimeSpan.FromSeconds(30));

    /// <param name="participants">Started on the child's PID before its runtime resumes (the Linux kernel session), ended after it exited; the side sessions join them.</param>
    /// <param name="providers">The providers to enable; null = the profile's (RecordCommand decides with the kernel session in mind).</param>
    public async Task<RecordingOutcome> RecordAsync(ChildCommand command, TraceProfile profile, string tracePath, IProgress<string>? progress, CancellationToken cancel,
        RecordingParticipants? participants = null, IReadOnlyList<EventPipeProvider>? providers = null, TracingCostGate? costGate = null, Action? onCut = null)
    {
        var clock = RecordingClock.Start();
        if (participants is not null) await participants.ChildLaunchingAsync(cancel).ConfigureAwait(false);
        await using var runtime = await LaunchedRuntime.StartAsync(command, connectTimeout, cancel).ConfigureAwait(false);
        return await RecordAsync(runtime, clock, profile, tracePath, progress, cancel, null, participants, providers, costGate, onCut).ConfigureAwait(false);
    }

    /// <summary>
    /// Records <paramref name="runtime"/> until it exits, or, for one esp did not start, until <paramref name="cancel"/>
    /// or <paramref name="duration"/> ends the recording (it detaches; the process runs on).
    /// </summary>
    public static async Task<RecordingOutcome> RecordAsync(RecordedRuntime runtime, RecordingClock clock, TraceProfile profile, string tracePath, IProgress<string>? progress,
        CancellationToken cancel, TimeSpan? duration = null, RecordingParticipants? participants = null, IReadOnlyList<EventPipeProvider>? providers = null,
        TracingCostGate? costGate = null, Action? onCut = null, Action? onRecording = null)
    {
        var started = clock.Stopwatch;
        var cpuAtStart = clock.CpuAtStart;
        var exitTask = runtime.Exited;
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancel);
        if (duration is { } d) stop.CancelAfter(d);
        {
            var client = runtime.Client;
            var warnings = new List<string>();
            // The side sessions (exceptions, lock-wait stacks) join the recording: they start after the others, on
            // the runtime still waiting at the port, and end before them.
            await using var own = participants is null ? new RecordingParticipants() : null;
            participants ??= own!;
            var sides = new EventPipeSideSessions(client, profile, providers ?? EventPipeProviders.For(profile), Path.GetDirectoryName(Path.GetFullPath(tracePath))!, warnings, progress);
            participants.Add(sides);
            EventPipeSession session;
            try
            {
                // A launched runtime waits at the port: a kernel session started now sees every thread from the first managed instruction.
                await participants.ChildStartingAsync(runtime.Id, cancel).ConfigureAwait(false);
                try
                {
                    session = client.StartEventPipeSession(sides.MainSession);
                }
                catch (UnsupportedCommandException) when (sides.MainStackless)
                {
                    // A runtime that cannot record without stacks: one session with a stack on every event, as before.
                    await sides.StacksInMainAsync().ConfigureAwait(false);
                    session = client.StartEventPipeSession(new EventPipeSessionConfiguration(sides.MainProviders, CircularBufferMB, requestRundown: true, requestStackwalk: true));
                }
                runtime.Resume();
            }
            catch
            {
                // Neither the suspended child nor the kernel session may outlive a recording that never started.
                runtime.Abandon();
                await participants.ChildExitedAsync(interrupted: true).ConfigureAwait(false);
                throw;
            }
            using var sessionScope = session;
            // Ended with the others; here too when the recording fails, so that no side file is still written.
            await using var sidesScope = sides;
            onRecording?.Invoke();
            progress?.Report($"recording {(runtime.StartedByEsp ? "process " + runtime.Id : runtime.Display)} with profile '{profile.Name}' -> {Fmt.DisplayPath(tracePath)}");

            // Unbuffered (the writer's own 80 KB blocks): a failed write is seen at once, and nothing is left to flush on a full disk.
            await using var file = new FileStream(tracePath, FileMode.Create, FileAccess.Write, FileShare.Read, 0, useAsync: true);
            var writer = TraceStreamWriter.Start(session.EventStream, file, started, () => DiskSpaceCheck.NearlyFull(tracePath));
            var copyTask = writer.Completion;
            var status = RecordingStatus.Complete;
            RecordingCut? cut = null;
            await using var cost = costGate is null ? null : new TracingCostSessions(client, session, copyTask, sides.Real, participants, progress, warnings);
            var costTask = cost is null ? Task.CompletedTask : costGate!.ServeAsync(cost.SetAsync, cost.EndAsync, cancel);
            try
            {
                // Long recordings show that they are alive and how big the trace is getting, once a minute (a line each in a log).
                // Free space is watched 4 times a second: the trace is cut while a little is left, so that perf (on the
                // same disk) can still finish its file; a write that fails first cuts it too (TraceStreamWriter).
                var ticks = 0;
                var deathSaid = false;
                while (!exitTask.IsCompleted)
                {
                    await Task.WhenAny(exitTask, writer.Cut, Task.Delay(DiskSpaceCheck.PollInterval, stop.Token)).ConfigureAwait(false);
                    stop.Token.ThrowIfCancellationRequested();
                    if (!writer.Cut.IsCompleted && DiskSpaceCheck.NearlyFull(tracePath) is { } low) writer.CutNow(RecordingStatus.DiskFull, low, started, file);
                    // A removed folder fails no write on Unix (the open file lives on, unlinked): it is looked for.
                    if (!writer.Cut.IsCompleted && TraceFolderGone.Reason(tracePath) is { } gone) writer.CutNow(RecordingStatus.WriteFailed, gone, started, file);
                    if (writer.Cut.IsCompleted) break;
                    // perf killed or crashed: said once, kept in the manifest (kernel.died); EventPipe records on.
                    // perf also ends by itself as the process exits: that is no death (a moment's grace for a busy machine).
                    if (participants.AnyEnded && !deathSaid && !runtime.HasExited && !await WaitQuietly(exitTask, TimeSpan.FromMilliseconds(500)).ConfigureAwait(false)
                        && participants.NoticeDeath() is { } died)
                    {
                        deathSaid = true;
                        progress?.Report(died);
                        warnings.Add(died);
                    }
                    if (!exitTask.IsCompleted && ++ticks % 240 == 0) progress?.Report($"  recording: {new FileInfo(tracePath).Length / 1048576.0:F1} MB, {started.Elapsed.TotalSeconds:F0} s");
                }
                if (writer.Cut.IsCompleted && !exitTask.IsCompleted)
                {
                    // The disk is full (or a write failed): stop the session (the writer drains the rest, so the runtime
                    // never blocks), then ask the child to stop as Ctrl+C would, so the benchmark saves what it measured.
                    (status, cut) = await writer.Cut.ConfigureAwait(false);
                    // perf records no more (what it holds still reaches the disk) and the side sessions stop, then the
                    // room set aside for perf's last write and the benchmark's results is freed.
                    await participants.PauseAsync().ConfigureAwait(false);
                    onCut?.Invoke();
                    progress?.Report($"{(status == RecordingStatus.DiskFull ? "the disk is full" : "writing the trace failed")} after {cut.TraceBytes / 1048576.0:F1} MB ({cut.Reason}): stopping the session and the child...");
                    TryStop(session, warnings);
                    await runtime.StopAsync(TimeSpan.FromSeconds(15)).ConfigureAwait(false);
                }
            }
            catch (OperationCanceledException) when (!runtime.StartedByEsp)
            {
                // Ctrl+C or --duration on a process esp attached to: the recording's normal end. The session's stop asks
                // for the rundown (the names of code compiled before the attach); the process runs on.
                progress?.Report("stopping the session (rundown); the process runs on...");
                TryStop(session, warnings);
                await sides.PauseAsync().ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                status = RecordingStatus.Interrupted;
                progress?.Report("Ctrl+C: stopping the session (rundown) and the child...");
                // Stop first so rundown resolves method names; the child may already be exiting on its own SIGINT.
                TryStop(session, warnings);
                await sides.PauseAsync().ConfigureAwait(false);
                await runtime.StopAsync(TimeSpan.FromSeconds(5)).ConfigureAwait(false);
            }

            await WaitQuietly(costTask, TimeSpan.FromSeconds(10)).ConfigureAwait(false);
            // A normal exit ends the stream after the runtime's own shutdown rundown; a crash ends it abruptly.
            if (!await WaitQuietly(copyTask, TimeSpan.FromSeconds(60)).ConfigureAwait(false))
            {
                TryStop(session, warnings);
                if (!await WaitQuietly(copyTask, TimeSpan.FromSeconds(30)).ConfigureAwait(false))
                    warnings.Add("the trace stream did not end within 90 s after the child exited; the file may be truncated");
            }
            if (copyTask.IsFaulted) warnings.Add($"trace stream ended with an error: {copyTask.Exception?.GetBaseException().Message}");
            // A write that failed as the child was ending (its last events, rundown) cuts the trace too.
            if (cut is null && writer.Cut.IsCompleted) { (status, cut) = await writer.Cut.ConfigureAwait(false); onCut?.Invoke(); }

            // The recorder's own CPU while it recorded: read before the kernel session's conversion, which is after it.
            var recorderCpu = RecordingClock.RecorderCpuNow() - cpuAtStart;
            // perf ends by itself when the child it started exits; a process esp attached to runs on, so perf is told
            // at once (waiting for it to notice an exit that never comes cost 10.7 s per detach). The side sessions end
            // first: the child has exited (their streams ended with it) or was stopped, so their files are complete.
            var interruptPerf = status is RecordingStatus.Interrupted or RecordingStatus.DiskFull or RecordingStatus.WriteFailed || !runtime.StartedByEsp;
            await participants.ChildExitedAsync(interruptPerf).ConfigureAwait(false);
            var exitCode = runtime.StartedByEsp ? runtime.ExitCode ?? -1 : (int?)null;
            if (status == RecordingStatus.Complete && exitCode is { } code && code != 0)
                status = IsCrashExitCode(code) ? RecordingStatus.ChildCrashed : RecordingStatus.ChildFailed;
            return new RecordingOutcome
            {
                Status = status,
                ChildExitCode = exitCode,
                ChildProcessId = runtime.Id,
                AttachedExited = runtime.StartedByEsp ? null : runtime.HasExited,
                TraceBytes = TraceBytes(file, tracePath),
                Duration = started.Elapsed,
                RecorderCpu = recorderCpu,
                Warnings = warnings,
                // The bytes on disk once the stream has drained (a write under way at the cut may have ended after it).
                Cut = cut is null ? null : cut with { TraceBytes = TraceBytes(file, tracePath) },
            };
        }
    }

    private static long TraceBytes(FileStream file, string path)
    {
        try { return file.Length; }
        catch (Exception ex) when (ex is IOException or ObjectDisposedException) { return File.Exists(path) ? new FileInfo(path).Length : 0; }
    }

    /// <summary>Unix: killed by a signal shows as 128+n; .NET's own unhandled-exception abort is SIGABRT (134).</summary>
    private static bool IsCrashExitCode(int code) => code < 0 || (code >= 128 + 1 && code <= 128 + 64 && code != ExitCodes.Interrupted);

    internal static void TryStop(EventPipeSession session, List<string> warnings)
    {
        try { session.Stop(); }
        catch (Exception ex) when (ex is ServerNotAvailableException or IOException or ObjectDisposedException or ServerErrorException or TimeoutException)
        {
            warnings.Add($"session stop: {ex.Message} (the process had already ended; rundown may be missing)");
        }
    }

    internal static async Task<bool> WaitQuietly(Task task, TimeSpan timeout)
    {
        try { await task.WaitAsync(timeout).ConfigureAwait(false); return true; }
        catch (TimeoutException) { return false; }
        catch (Exception) { return true; } // faulted: finished, reported by the caller
    }

}

/// <summary>A program to record: file, arguments and extra environment.</summary>
public sealed record ChildCommand(string FileName, IReadOnlyList<string> Arguments, IReadOnlyDictionary<string, string> Environment)
{
    public string Display => string.Join(' ', new[] { FileName }.Concat(Arguments));
}

/// <summary>When a recording started: the monotonic clock, and the recorder's own CPU clock then.</summary>
public sealed record RecordingClock(Stopwatch Stopwatch, TimeSpan CpuAtStart)
{
    public static RecordingClock Start() => new(Stopwatch.StartNew(), RecorderCpuNow());

    public static TimeSpan RecorderCpuNow()
    {
        using var self = Process.GetCurrentProcess();
        return self.TotalProcessorTime;
    }
}
