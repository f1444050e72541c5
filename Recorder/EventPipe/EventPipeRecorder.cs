using System.ComponentModel;
using System.Diagnostics;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Processes;
using EtwSerializerProfiler.Recorder.Profiles;
using Microsoft.Diagnostics.NETCore.Client;

namespace EtwSerializerProfiler.Recorder.EventPipe;

/// <summary>
/// Records a child .NET process from its first instruction: the tool listens on a diagnostic port, the child is
/// started with DOTNET_DiagnosticPorts pointing at it (connect + suspend are the runtime defaults), the session is
/// started, and only then is the runtime resumed, so startup JIT and type loads are in the trace. Every .NET process
/// the child starts inherits the variable and connects too: on Unix a <see cref="DiagnosticPortProxy"/> resumes those
/// at once and passes only the child on to the session (Windows: not yet, one port as before; docs/recorder.md).
/// </summary>
public sealed class EventPipeRecorder(TimeSpan connectTimeout)
{
    public const int CircularBufferMB = 256;

    public static EventPipeRecorder Default { get; } = new(TimeSpan.FromSeconds(30));

    /// <param name="companion">A session started on the child's PID before its runtime resumes (the Linux kernel session).</param>
    /// <param name="providers">The providers to enable; null = the profile's (RecordCommand decides with the kernel session in mind).</param>
    public async Task<RecordingOutcome> RecordAsync(ChildCommand command, TraceProfile profile, string tracePath, IProgress<string>? progress, CancellationToken cancel,
        Kernel.ICompanionSession? companion = null, IReadOnlyList<EventPipeProvider>? providers = null, TracingCostGate? costGate = null, Action? onCut = null)
    {
        // Unix: the child's port is the proxy's, which passes only the child on to the session's port; Windows: one port.
        var port = DiagnosticPortName();
        var sessionPort = OperatingSystem.IsWindows() ? port : DiagnosticPortName();
        using var connectCancel = CancellationTokenSource.CreateLinkedTokenSource(cancel);
        var connectTask = DiagnosticsClientConnector.FromDiagnosticPort(sessionPort, connectCancel.Token);
        await WaitForListenerAsync(sessionPort, connectTask).ConfigureAwait(false);

        var started = Stopwatch.StartNew();
        var cpuAtStart = RecorderCpuNow();
        DiagnosticPortProxy? proxy = null;
        LaunchedProcess launched;
        try
        {
            proxy = OperatingSystem.IsWindows() ? null : DiagnosticPortProxy.Start(port, sessionPort);
            launched = StartChild(command, port);
        }
        catch
        {
            if (proxy is not null) await proxy.DisposeAsync().ConfigureAwait(false);
            await connectCancel.CancelAsync().ConfigureAwait(false);
            CleanupPort(port, sessionPort);
            throw;
        }
        await using var proxyScope = proxy;
        using var launchedScope = launched;
        var child = launched.Process;
        proxy?.Record(child.Id);
        var exitTask = child.WaitForExitAsync(CancellationToken.None);

        DiagnosticsClientConnector connector;
        try
        {
            var first = await Task.WhenAny(connectTask, exitTask, Task.Delay(connectTimeout, cancel)).ConfigureAwait(false);
            if (first == exitTask)
                throw new UsageException($"'{command.Display}' exited (code {child.ExitCode}) before connecting to the diagnostic port: {NotConnectedHint(proxy)}");
            if (first != connectTask)
            {
                cancel.ThrowIfCancellationRequested();
                throw new UsageException($"'{command.Display}' did not connect to the diagnostic port within {connectTimeout.TotalSeconds:F0} s: {NotConnectedHint(proxy)}");
            }
            connector = await connectTask.ConfigureAwait(false);
            RuntimeSockets.DeleteOnExit(launched);
        }
        catch
        {
            await connectCancel.CancelAsync().ConfigureAwait(false);
            KillTree(child);
            CleanupPort(port, sessionPort);
            throw;
        }

        await using (connector.ConfigureAwait(false))
        {
            var client = connector.Instance;
            // The runtime waits at the port: a kernel session started now sees every thread from the first managed instruction.
            if (companion is not null) await companion.StartAsync(child.Id, cancel).ConfigureAwait(false);
            var providerList = providers ?? EventPipeProviders.For(profile);
            // The profile's stackless keywords (exceptions) in sessions of their own, started before the runtime resumes too.
            var stackless = EventPipeProviders.Stackless(profile);
            var warnings = new List<string>();
            EventPipeSession session;
            ExceptionSessions? exceptions = null;
            StackSession? stacks = null;
            IReadOnlyList<EventPipeProvider> stackSide = [];
            var mainStackless = false;
            try
            {
                try
                {
                    exceptions = ExceptionSessions.Start(client, stackless, Path.GetDirectoryName(Path.GetFullPath(tracePath)), warnings, EventPipeProviders.StacklessMaxBytesPerSecond(profile));
                }
                catch (UnsupportedCommandException ex)
                {
                    // .NET 8 refuses a session without stacks: its keywords go back into the main session, with stacks.
                    var said = $"this runtime cannot record without stacks ({ex.Message}): exceptions are recorded with a stack each, in the main trace (costlier on exception-heavy code)";
                    progress?.Report(said);
                    warnings.Add(said);
                    providerList = EventPipeProviders.WithStackless(providerList, stackless);
                    stackless = [];
                }
                // The keywords whose stacks the analysis reads in a session of their own, and the main one without stacks
                // (not on a runtime that refused the stackless exception session: it would refuse this one too).
                mainStackless = (stackless.Count > 0 || EventPipeProviders.Stackless(profile).Count == 0) && EventPipeProviders.MainWithoutStacks(profile, providerList);
                var side = mainStackless ? EventPipeProviders.StackSide(profile, providerList) : [];
                stacks = StackSession.Start(client, side, Path.GetDirectoryName(Path.GetFullPath(tracePath)), warnings);
                try
                {
                    session = client.StartEventPipeSession(new EventPipeSessionConfiguration(EventPipeProviders.Without(providerList, side), CircularBufferMB, requestRundown: true, requestStackwalk: !mainStackless));
                    if (mainStackless) (providerList, stackSide) = (EventPipeProviders.Without(providerList, side), side);
                }
                catch (UnsupportedCommandException) when (mainStackless)
                {
                    // A runtime that cannot record without stacks: one session with a stack on every event, as before.
                    if (stacks is not null) await stacks.DisposeAsync().ConfigureAwait(false);
                    stacks = null;
                    mainStackless = false;
                    try { File.Delete(Path.Combine(Path.GetDirectoryName(Path.GetFullPath(tracePath))!, Common.TraceFolderLayout.StacksTrace)); }
                    catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { }
                    session = client.StartEventPipeSession(new EventPipeSessionConfiguration(providerList, CircularBufferMB, requestRundown: true, requestStackwalk: true));
                }
                client.ResumeRuntime();
            }
            catch
            {
                // Neither the suspended child nor the kernel session may outlive a recording that never started.
                if (exceptions is not null) await exceptions.DisposeAsync().ConfigureAwait(false);
                if (stacks is not null) await stacks.DisposeAsync().ConfigureAwait(false);
                KillTree(child);
                if (companion is not null) await companion.StopAsync(interrupted: true).ConfigureAwait(false);
                CleanupPort(port, sessionPort);
                throw;
            }
            using var sessionScope = session;
            await using var exceptionsScope = exceptions;
            await using var stacksScope = stacks;
            progress?.Report($"recording process {child.Id} with profile '{profile.Name}' -> {tracePath}");

            // Unbuffered (the writer's own 80 KB blocks): a failed write is seen at once, and nothing is left to flush on a full disk.
            await using var file = new FileStream(tracePath, FileMode.Create, FileAccess.Write, FileShare.Read, 0, useAsync: true);
            var writer = TraceStreamWriter.Start(session.EventStream, file, started, () => DiskSpaceCheck.NearlyFull(tracePath));
            var copyTask = writer.Completion;
            var status = RecordingStatus.Complete;
            RecordingCut? cut = null;
            await using var cost = costGate is null ? null : new TracingCostSessions(client, session, copyTask, providerList, companion, child.Id, progress, warnings, exceptions, stackless, stacks, mainStackless);
            var costTask = cost is null ? Task.CompletedTask : costGate!.ServeAsync(cost.SetAsync, cost.EndAsync, cancel);
            try
            {
                // Long recordings show that they are alive and how big the trace is getting.
                // Free space is watched 4 times a second: the trace is cut while a little is left, so that perf (on the
                // same disk) can still finish its file; a write that fails first cuts it too (TraceStreamWriter).
                var ticks = 0;
                var perfDeathSaid = false;
                while (!exitTask.IsCompleted)
                {
                    await Task.WhenAny(exitTask, writer.Cut, Task.Delay(DiskSpaceCheck.PollInterval, cancel)).ConfigureAwait(false);
                    cancel.ThrowIfCancellationRequested();
                    if (!writer.Cut.IsCompleted && DiskSpaceCheck.NearlyFull(tracePath) is { } low) writer.CutNow(RecordingStatus.DiskFull, low, started, file);
                    // A removed folder fails no write on Unix (the open file lives on, unlinked): it is looked for.
                    if (!writer.Cut.IsCompleted && TraceFolderGone.Reason(tracePath) is { } gone) writer.CutNow(RecordingStatus.WriteFailed, gone, started, file);
                    if (writer.Cut.IsCompleted) break;
                    // perf killed or crashed: said once, kept in the manifest (kernel.died); EventPipe records on.
                    // perf also ends by itself as the process exits: that is no death (a moment's grace for a busy machine).
                    if (companion is { Ended: true } && !perfDeathSaid && !child.HasExited && !await WaitQuietly(exitTask, TimeSpan.FromMilliseconds(500)).ConfigureAwait(false)
                        && companion.NoticeDeath() is { } died)
                    {
                        perfDeathSaid = true;
                        progress?.Report(died);
                        warnings.Add(died);
                    }
                    if (!exitTask.IsCompleted && ++ticks % 20 == 0) progress?.Report($"  recording: {new FileInfo(tracePath).Length / 1048576.0:F1} MB, {started.Elapsed.TotalSeconds:F0} s");
                }
                if (writer.Cut.IsCompleted && !exitTask.IsCompleted)
                {
                    // The disk is full (or a write failed): stop the session (the writer drains the rest, so the runtime
                    // never blocks), then ask the child to stop as Ctrl+C would, so the benchmark saves what it measured.
                    (status, cut) = await writer.Cut.ConfigureAwait(false);
                    // perf records no more (what it holds still reaches the disk), then the room set aside for its last
                    // write and the benchmark's results is freed.
                    if (companion is not null) await companion.PauseAsync().ConfigureAwait(false);
                    onCut?.Invoke();
                    progress?.Report($"{(status == RecordingStatus.DiskFull ? "the disk is full" : "writing the trace failed")} after {cut.TraceBytes / 1048576.0:F1} MB ({cut.Reason}): stopping the session and the child...");
                    TryStop(session, warnings);
                    if (exceptions is not null) await exceptions.StopAsync().ConfigureAwait(false);
                    if (stacks is not null) await stacks.StopAsync().ConfigureAwait(false);
                    Interrupt(child);
                    if (!await WaitQuietly(exitTask, TimeSpan.FromSeconds(15)).ConfigureAwait(false)) KillTree(child);
                }
            }
            catch (OperationCanceledException)
            {
                status = RecordingStatus.Interrupted;
                progress?.Report("Ctrl+C: stopping the session (rundown) and the child...");
                // Stop first so rundown resolves method names; the child may already be exiting on its own SIGINT.
                TryStop(session, warnings);
                if (exceptions is not null) await exceptions.StopAsync().ConfigureAwait(false);
                if (stacks is not null) await stacks.StopAsync().ConfigureAwait(false);
                Interrupt(child);
                if (!await WaitQuietly(exitTask, TimeSpan.FromSeconds(5)).ConfigureAwait(false)) KillTree(child);
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
            // The child has exited (its sessions ended with it) or was stopped: the sampler stops, the files are complete.
            if (exceptions is not null) await exceptions.StopAsync().ConfigureAwait(false);
            if (stacks is not null) await stacks.StopAsync().ConfigureAwait(false);
            // A write that failed as the child was ending (its last events, rundown) cuts the trace too.
            if (cut is null && writer.Cut.IsCompleted) { (status, cut) = await writer.Cut.ConfigureAwait(false); onCut?.Invoke(); }

            // The recorder's own CPU while it recorded: read before the kernel session's conversion, which is after it.
            var recorderCpu = RecorderCpuNow() - cpuAtStart;
            if (companion is not null) await companion.StopAsync(status is RecordingStatus.Interrupted or RecordingStatus.DiskFull or RecordingStatus.WriteFailed).ConfigureAwait(false);
            var exitCode = child.HasExited ? child.ExitCode : -1;
            if (status == RecordingStatus.Complete && exitCode != 0)
                status = IsCrashExitCode(exitCode) ? RecordingStatus.ChildCrashed : RecordingStatus.ChildFailed;
            CleanupPort(port, sessionPort);
            return new RecordingOutcome
            {
                Status = status,
                ChildExitCode = exitCode,
                ChildProcessId = child.Id,
                TraceBytes = TraceBytes(file, tracePath),
                Duration = started.Elapsed,
                RecorderCpu = recorderCpu,
                Warnings = warnings,
                ExceptionsStoppedAtSeconds = exceptions?.StoppedAtSeconds,
                StacksOnlyFor = !mainStackless ? null : stackSide.Select(p => $"{p.Name}:0x{p.Keywords:X}").ToList(),
                // The bytes on disk once the stream has drained (a write under way at the cut may have ended after it).
                Cut = cut is null ? null : cut with { TraceBytes = TraceBytes(file, tracePath) },
            };
        }
    }

    private static TimeSpan RecorderCpuNow()
    {
        using var self = Process.GetCurrentProcess();
        return self.TotalProcessorTime;
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

    /// <summary>A wrapper that forks (a shell without exec) starts the .NET program as a process of its own, which the proxy lets run.</summary>
    private static string NotConnectedHint(DiagnosticPortProxy? proxy) => proxy?.ResumedProcessIds is { Count: > 0 } others
        ? $"it started .NET process{(others.Count > 1 ? "es" : "")} {string.Join(", ", others)}, which ran untraced: record the .NET program itself (esp record -- dotnet app.dll)"
        : "is it a .NET program (.NET 5 or later)?";

    private static string DiagnosticPortName()
    {
        var name = $"esp-{Environment.ProcessId}-{Guid.NewGuid():N}";
        if (OperatingSystem.IsWindows()) return name;
        var socket = Path.Combine(Path.GetTempPath(), name + ".sock");
        ExitJanitor.DeleteOnExit(socket); // even if esp is killed, which runs no cleanup of its own
        return socket;
    }

    private static async Task WaitForListenerAsync(string port, Task connectTask)
    {
        if (OperatingSystem.IsWindows()) { await Task.Delay(50).ConfigureAwait(false); return; }
        // The runtime gives up on a port that is not listening yet; wait until the socket exists.
        for (var i = 0; i < 200 && !File.Exists(port); i++)
        {
            if (connectTask.IsFaulted) await connectTask.ConfigureAwait(false);
            await Task.Delay(10).ConfigureAwait(false);
        }
        if (!File.Exists(port)) throw new IOException($"could not create diagnostic port {port}");
    }

    private static void CleanupPort(params string[] ports)
    {
        if (OperatingSystem.IsWindows()) return;
        foreach (var port in ports.Distinct()) { try { File.Delete(port); } catch (IOException) { } }
    }

    /// <summary>The child dies with esp (ChildProcessLauncher: the parent-death signal on Linux).</summary>
    private static LaunchedProcess StartChild(ChildCommand command, string port)
    {
        var psi = new ProcessStartInfo(command.FileName) { UseShellExecute = false };
        foreach (var a in command.Arguments) psi.ArgumentList.Add(a);
        psi.Environment["DOTNET_DiagnosticPorts"] = port;
        // Children of the child inherit the port (the proxy resumes them) but not a default port's suspend.
        psi.Environment.Remove("DOTNET_DefaultDiagnosticPortSuspend");
        foreach (var (k, v) in command.Environment) psi.Environment[k] = v;
        try
        {
            return ChildProcessLauncher.Start(psi);
        }
        catch (Win32Exception ex)
        {
            throw new UsageException($"could not start '{command.Display}': {ex.Message}");
        }
    }

    private static void KillTree(Process child)
    {
        try
        {
            if (child.HasExited) return;
            child.Kill(entireProcessTree: true);
            child.WaitForExit(5000); // reap it, so nobody sees a stopped-but-present process
        }
        catch (InvalidOperationException) { }
    }

    /// <summary>
    /// Asks the child to stop the way a terminal's Ctrl+C would (SIGINT), so a benchmark can save partial
    /// results. A real Ctrl+C already reached it through the process group; a second one is harmless.
    /// </summary>
    private static void Interrupt(Process child)
    {
        if (OperatingSystem.IsWindows() || child.HasExited) return;
        const int SigInt = 2;
        _ = NativeSignals.Kill(child.Id, SigInt);
    }
}

/// <summary>A program to record: file, arguments and extra environment.</summary>
public sealed record ChildCommand(string FileName, IReadOnlyList<string> Arguments, IReadOnlyDictionary<string, string> Environment)
{
    public string Display => string.Join(' ', new[] { FileName }.Concat(Arguments));
}

internal static partial class NativeSignals
{
    [System.Runtime.InteropServices.LibraryImport("libc", EntryPoint = "kill")]
    internal static partial int Kill(int pid, int signal);
}
