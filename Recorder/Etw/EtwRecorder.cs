using System.ComponentModel;
using System.Diagnostics;
using System.Runtime.Versioning;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.EventPipe;
using Microsoft.Diagnostics.Tracing.Session;

namespace EtwSerializerProfiler.Recorder.Etw;

/// <summary>
/// Records a child process with ETW: one session carries the kernel provider and the user providers (the tool runs
/// on .NET 10, so on Windows 10 / Server 2012 or later, where that always works); the child runs normally (ETW needs
/// no diagnostic port). When the benchmark is about to exit it says so over the exit handshake and waits: the CLR
/// rundown is then asked of that one process (a PID filter keeps every other .NET process out) while it can still
/// answer, and the session file is merged into trace.etl. The session (<see cref="EtwSession"/>, a participant of the
/// recording) is stopped on every path: normal end, Ctrl+C, crashed child, exception; one that survives a killed
/// recorder is found by `esp cleanup` through its name prefix.
/// Compiled, not run on this project's Linux CI: see docs/windows.md.
/// </summary>
[SupportedOSPlatform("windows")]
public sealed class EtwRecorder
{
    /// <summary>After Ctrl+C (which reaches the child too), how long the benchmark gets to save partial results and say "exiting".</summary>
    private static readonly TimeSpan InterruptGrace = TimeSpan.FromSeconds(10);
    /// <summary>After "go", how long the child gets to exit before it is killed.</summary>
    private static readonly TimeSpan ExitGrace = TimeSpan.FromSeconds(30);
    /// <summary>Without a handshake (an interrupted or hung child), how long it gets before it is killed.</summary>
    private static readonly TimeSpan NoHandshakeGrace = TimeSpan.FromSeconds(5);

    /// <summary>Fails before any folder is created: without elevation every ETW call below would fail one by one.</summary>
    public static void EnsureCanRecord()
    {
        if (TraceEventSession.IsElevated() != true)
            throw new UsageException("--backend etw needs an elevated (administrator) prompt: only administrators can start ETW sessions");
    }

    /// <param name="participants">The session joins them (<see cref="EtwSession"/>): it starts before the child, ends after it exited and writes the manifest's ETW fields.</param>
    /// <param name="gate">The benchmark's exit handshake; null for `record -- command`, which cannot be held before it exits.</param>
    public async Task<RecordingOutcome> RecordAsync(ChildCommand command, EtwSessionPlan plan, TraceFolder folder, RecordingParticipants participants, RundownGate? gate,
        IProgress<string>? progress, CancellationToken cancel)
    {
        if (plan.Layout != EtwSessionLayout.Combined)
            throw new ArgumentException("esp record uses one combined session; the NT Kernel Logger layout is for the scripts", nameof(plan));
        var clock = Stopwatch.StartNew();
        var warnings = new List<string>();
        var session = new EtwSession(plan, folder, warnings, progress);
        participants.Add(session);
        Process? child = null;
        try
        {
            await participants.ChildLaunchingAsync(cancel).ConfigureAwait(false);
            child = StartChild(command);
            await participants.ChildStartingAsync(child.Id, cancel).ConfigureAwait(false);
            progress?.Report($"recording process {child.Id} with profile '{plan.ProfileName}' in ETW session {plan.SessionName} -> {folder.Etl}");
            var (interrupted, released) = await RundownBeforeExitAsync(session, gate, child, progress, warnings, cancel).ConfigureAwait(false);
            if (!child.WaitForExit((int)(released ? ExitGrace : NoHandshakeGrace).TotalMilliseconds)) child.Kill(entireProcessTree: true);

            var exitCode = child.HasExited ? child.ExitCode : -1;
            // On Windows a crash ends with an NTSTATUS (0xC...) exit code, negative as an int.
            var status = interrupted ? RecordingStatus.Interrupted
                : exitCode == 0 ? RecordingStatus.Complete
                : exitCode < 0 ? RecordingStatus.ChildCrashed : RecordingStatus.ChildFailed;
            // The session stops and is merged into trace.etl.
            await participants.ChildExitedAsync(interrupted).ConfigureAwait(false);
            return new RecordingOutcome
            {
                Status = status,
                ChildExitCode = exitCode,
                ChildProcessId = child.Id,
                TraceBytes = new FileInfo(folder.Etl).Length,
                Duration = clock.Elapsed,
                Warnings = warnings,
            };
        }
        catch (Exception ex) when (ex is not UsageException and not OperationCanceledException)
        {
            throw new UsageException($"ETW recording failed: {ex.Message}");
        }
        finally
        {
            await session.DisposeAsync().ConfigureAwait(false);
            if (child is { HasExited: false }) child.Kill(entireProcessTree: true);
            child?.Dispose();
            // The session file of a run that happened is the only copy of the data when merging failed: keep it.
            if (!File.Exists(folder.Etl) && child is null) FileCleanup.TryDelete(session.SessionFile);
        }
    }

    /// <summary>
    /// Waits for the benchmark's "exiting" (or its exit, or Ctrl+C), runs the rundown for that process and lets it go.
    /// Returns whether the recording was interrupted and whether the benchmark was released after a rundown.
    /// </summary>
    private static async Task<(bool Interrupted, bool Released)> RundownBeforeExitAsync(EtwSession session, RundownGate? gate,
        Process child, IProgress<string>? progress, List<string> warnings, CancellationToken cancel)
    {
        var exited = child.WaitForExitAsync(CancellationToken.None);
        if (gate is null)
        {
            warnings.Add("no CLR rundown: `record -- command` cannot hold an arbitrary program before it exits; precompiled (ReadyToRun/NGen) frames are named only where symbols are found");
            try { await exited.WaitAsync(cancel).ConfigureAwait(false); return (false, false); }
            catch (OperationCanceledException) { return (true, false); }
        }

        using var stopWaiting = new CancellationTokenSource();
        var exiting = gate.WaitForExitingAsync(stopWaiting.Token);
        var interrupted = false;
        var released = false;
        var first = await Task.WhenAny(exiting, exited, Task.Delay(Timeout.Infinite, cancel)).ConfigureAwait(false);
        if (first != exiting && first != exited)
        {
            // The console's Ctrl+C reached the benchmark too: it saves partial results and then says "exiting".
            interrupted = true;
            progress?.Report($"Ctrl+C: giving the benchmark {InterruptGrace.TotalSeconds:F0} s to save partial results before the rundown...");
            await Task.WhenAny(exiting, exited, Task.Delay(InterruptGrace, CancellationToken.None)).ConfigureAwait(false);
        }
        if (exiting.IsCompletedSuccessfully && exiting.Result is { } pid)
        {
            if (pid != child.Id) warnings.Add($"the exit handshake came from process {pid}, not the recorded process {child.Id}; rundown asked of {pid}");
            progress?.Report($"CLR rundown of process {pid} (it waits until the trace stops growing, at most {EtwSession.RundownLimit.TotalSeconds:F0} s)...");
            await session.RundownAsync(pid).ConfigureAwait(false);
            released = true;
        }
        else
        {
            warnings.Add(child.HasExited
                ? $"no CLR rundown: the benchmark exited (code {child.ExitCode}) without the exit handshake; precompiled (ReadyToRun/NGen) frames are named only where symbols are found"
                : "no CLR rundown: the benchmark did not reach the exit handshake in time");
        }
        await stopWaiting.CancelAsync().ConfigureAwait(false);
        await gate.ReleaseAsync().ConfigureAwait(false);
        return (interrupted, released);
    }

    private static Process StartChild(ChildCommand command)
    {
        var psi = new ProcessStartInfo(command.FileName) { UseShellExecute = false };
        foreach (var a in command.Arguments) psi.ArgumentList.Add(a);
        foreach (var (k, v) in command.Environment) psi.Environment[k] = v;
        try
        {
            return Process.Start(psi) ?? throw new UsageException($"could not start '{command.Display}'");
        }
        catch (Win32Exception ex)
        {
            throw new UsageException($"could not start '{command.Display}': {ex.Message}");
        }
    }
}
