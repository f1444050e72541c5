using System.ComponentModel;
using System.Diagnostics;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Processes;
using Microsoft.Diagnostics.NETCore.Client;

namespace EtwSerializerProfiler.Recorder.EventPipe;

/// <summary>
/// The .NET process a recording traces, reached through its diagnostic port: one esp starts, waiting at esp's port
/// until the sessions run (<see cref="LaunchedRuntime"/>), or one already running (<see cref="AttachedRuntime"/>:
/// `esp record --pid`, the BenchmarkDotNet diagnoser). The sessions are the same for both.
/// </summary>
public abstract class RecordedRuntime : IAsyncDisposable
{
    public abstract int Id { get; }
    public abstract DiagnosticsClient Client { get; }
    /// <summary>Completes when the process has exited.</summary>
    public abstract Task Exited { get; }
    public bool HasExited => Exited.IsCompleted;
    /// <summary>Esp started it: a stop of esp (Ctrl+C) interrupts the recording and the process. Attached: it ends the recording only.</summary>
    public abstract bool StartedByEsp { get; }
    /// <summary>The exit code once exited; null for a process esp did not start (Unix cannot read a non-child's).</summary>
    public abstract int? ExitCode { get; }
    /// <summary>The sessions are started: a launched runtime runs its first instruction now.</summary>
    public abstract void Resume();
    /// <summary>After a cut or Ctrl+C: a launched process is asked to stop (SIGINT), then killed after <paramref name="grace"/>. An attached one runs on.</summary>
    public abstract Task StopAsync(TimeSpan grace);
    /// <summary>The recording failed before it started: no process esp started may outlive it.</summary>
    public abstract void Abandon();
    /// <summary>For messages: "process 123" or the command esp started.</summary>
    public abstract string Display { get; }
    public abstract ValueTask DisposeAsync();
}

/// <summary>
/// A child .NET process recorded from its first instruction: the tool listens on a diagnostic port, the child is
/// started with DOTNET_DiagnosticPorts pointing at it (connect + suspend are the runtime defaults), and the runtime
/// waits there until <see cref="Resume"/>, so startup JIT and type loads are in the trace. Every .NET process the child
/// starts inherits the variable and connects too: on Unix a <see cref="DiagnosticPortProxy"/> resumes those at once
/// and passes only the child on to the session (Windows: one port; docs/recorder.md).
/// </summary>
public sealed class LaunchedRuntime : RecordedRuntime
{
    private readonly ChildCommand _command;
    private readonly string _port, _sessionPort;
    private readonly DiagnosticPortProxy? _proxy;
    private readonly LaunchedProcess _launched;
    private readonly DiagnosticsClientConnector _connector;

    private LaunchedRuntime(ChildCommand command, string port, string sessionPort, DiagnosticPortProxy? proxy, LaunchedProcess launched, DiagnosticsClientConnector connector, Task exited)
    {
        (_command, _port, _sessionPort, _proxy, _launched, _connector) = (command, port, sessionPort, proxy, launched, connector);
        Exited = exited;
    }

    public Process Process => _launched.Process;
    public override int Id => Process.Id;
    public override DiagnosticsClient Client => _connector.Instance;
    public override Task Exited { get; }
    public override bool StartedByEsp => true;
    public override int? ExitCode => Process.HasExited ? Process.ExitCode : null;
    public override string Display => _command.Display;

    public static async Task<LaunchedRuntime> StartAsync(ChildCommand command, TimeSpan connectTimeout, CancellationToken cancel)
    {
        // Unix: the child's port is the proxy's, which passes only the child on to the session's port; Windows: one port.
        var port = DiagnosticPortName();
        var sessionPort = OperatingSystem.IsWindows() ? port : DiagnosticPortName();
        using var connectCancel = CancellationTokenSource.CreateLinkedTokenSource(cancel);
        var connectTask = DiagnosticsClientConnector.FromDiagnosticPort(sessionPort, connectCancel.Token);
        await WaitForListenerAsync(sessionPort, connectTask).ConfigureAwait(false);

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
        var child = launched.Process;
        proxy?.Record(child.Id);
        var exitTask = child.WaitForExitAsync(CancellationToken.None);
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
            var connector = await connectTask.ConfigureAwait(false);
            RuntimeSockets.DeleteOnExit(launched);
            return new LaunchedRuntime(command, port, sessionPort, proxy, launched, connector, exitTask);
        }
        catch
        {
            await connectCancel.CancelAsync().ConfigureAwait(false);
            KillTree(child);
            CleanupPort(port, sessionPort);
            launched.Dispose();
            if (proxy is not null) await proxy.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    public override void Resume() => Client.ResumeRuntime();

    public override async Task StopAsync(TimeSpan grace)
    {
        Interrupt(Process);
        if (!await EventPipeRecorder.WaitQuietly(Exited, grace).ConfigureAwait(false)) KillTree(Process);
    }

    public override void Abandon() => KillTree(Process);

    public override async ValueTask DisposeAsync()
    {
        CleanupPort(_port, _sessionPort);
        await _connector.DisposeAsync().ConfigureAwait(false);
        _launched.Dispose();
        if (_proxy is not null) await _proxy.DisposeAsync().ConfigureAwait(false);
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
        foreach (var port in ports.Distinct()) FileCleanup.TryDelete(port);
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
        catch (InvalidOperationException) { } // it exited meanwhile
    }

    /// <summary>
    /// Asks the child to stop the way a terminal's Ctrl+C would (SIGINT), so a benchmark can save partial
    /// results. A real Ctrl+C already reached it through the process group; a second one is harmless. A child that
    /// ignores SIGINT (esp started from a background shell passes that on, and .NET keeps it) gets SIGTERM.
    /// </summary>
    private static void Interrupt(Process child)
    {
        if (OperatingSystem.IsWindows() || child.HasExited) return;
        const int SigInt = 2, SigTerm = 15;
        _ = NativeSignals.Kill(child.Id, NativeSignals.Ignores(child.Id, SigInt) ? SigTerm : SigInt);
    }
}

/// <summary>
/// A .NET process that already runs (`esp record --pid`, the BenchmarkDotNet diagnoser), reached through the
/// diagnostic socket every .NET 5+ process listens on. It is never signalled: stopping the recording detaches.
/// Code compiled before the attach is named from the rundown the session's stop asks for.
/// </summary>
public sealed class AttachedRuntime : RecordedRuntime
{
    private readonly Process _process;

    private AttachedRuntime(Process process, DiagnosticsClient client, string name)
    {
        (_process, Client) = (process, client);
        Display = $"process {process.Id} ({name})";
        Exited = WaitForExitAsync(process);
    }

    public override int Id => _process.Id;
    public override DiagnosticsClient Client { get; }
    public override Task Exited { get; }
    public override bool StartedByEsp => false;
    public override int? ExitCode => null;
    public override string Display { get; }

    /// <summary>
    /// The process to attach to, or one line (a <see cref="UsageException"/>, exit code 2) that says why not: no such
    /// process, not a .NET process with a diagnostic port, or one this user may not trace.
    /// </summary>
    public static AttachedRuntime Open(int processId)
    {
        if (processId <= 0) throw new UsageException($"--pid {processId}: not a process id");
        if (processId == Environment.ProcessId) throw new UsageException($"--pid {processId} is esp itself");
        Process process;
        string name;
        try
        {
            process = Process.GetProcessById(processId);
            name = process.ProcessName;
        }
        catch (Exception ex) when (ex is ArgumentException or InvalidOperationException)
        {
            throw new UsageException($"--pid {processId}: no such process");
        }
        // Its socket in the temp folder (DiagnosticsClient.GetPublishedProcesses reads every process's environment and
        // throws when one exits meanwhile). Windows: the runtime's named pipe.
        if (OperatingSystem.IsWindows() ? !File.Exists($@"\\.\pipe\dotnet-diagnostic-{processId}") : !RuntimeSockets.Of(processId).Any())
        {
            process.Dispose();
            throw new UsageException($"--pid {processId} ({name}) has no .NET diagnostic port: is it a .NET 5+ process, run by this user, with DOTNET_EnableDiagnostics not 0?");
        }
        if (CannotConnect(processId) is { } why)
        {
            process.Dispose();
            throw new UsageException($"--pid {processId} ({name}) cannot be traced: {why}");
        }
        var client = new DiagnosticsClient(processId);
        return new AttachedRuntime(process, client, name);
    }

    /// <summary>Unix: the runtime's socket refuses another user's connection (the socket is its owner's, mode 0600); null when it answers.</summary>
    private static string? CannotConnect(int processId)
    {
        if (OperatingSystem.IsWindows()) return null; // a named pipe: a refusal shows when the session starts
        foreach (var socket in RuntimeSockets.Of(processId))
        {
            try
            {
                using var probe = new System.Net.Sockets.Socket(System.Net.Sockets.AddressFamily.Unix, System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Unspecified);
                probe.Connect(new System.Net.Sockets.UnixDomainSocketEndPoint(socket));
                return null;
            }
            catch (System.Net.Sockets.SocketException ex)
            {
                return $"{ex.Message} ({socket})";
            }
        }
        return "its diagnostic socket is gone";
    }

    public override void Resume() { }

    public override Task StopAsync(TimeSpan grace) => Task.CompletedTask;

    public override void Abandon() { }

    public override ValueTask DisposeAsync()
    {
        _process.Dispose();
        return ValueTask.CompletedTask;
    }

    /// <summary>A process esp did not start: its exit is polled (the kernel tells only its parent).</summary>
    private static async Task WaitForExitAsync(Process process)
    {
        while (true)
        {
            try
            {
                process.Refresh();
                if (process.HasExited) return;
            }
            catch (InvalidOperationException) { return; } // gone
            await Task.Delay(100).ConfigureAwait(false);
        }
    }
}
