using System.Collections.Concurrent;
using System.Net.Sockets;

namespace EtwSerializerProfiler.Recorder.EventPipe;

/// <summary>
/// Stands in front of the recorder's diagnostic port (Unix). The recorded child gets this port in
/// DOTNET_DiagnosticPorts, and every .NET process it starts inherits it: each connects here, suspended at startup.
/// Each connection opens with the runtime's advertise (cookie, PID). The recorded runtime's connections (the direct
/// child's PID, its first cookie) are passed byte for byte to the session's own listener, so the session code sees the
/// child alone; any other runtime is sent ResumeRuntime on its first connection and runs on untraced, its later
/// connections (a resumed runtime reconnects for its next command) are held open, unanswered, until the proxy ends.
/// </summary>
public sealed class DiagnosticPortProxy : IAsyncDisposable
{
    private static readonly TimeSpan s_handshakeTimeout = TimeSpan.FromSeconds(10);

    private readonly Socket _listener;
    private readonly string _sessionPort;
    private readonly TaskCompletionSource<int> _recordedPid = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly CancellationTokenSource _stop = new();
    private readonly ConcurrentDictionary<Socket, byte> _open = new();
    private readonly ConcurrentDictionary<Guid, int> _resumed = new();
    private readonly Task _acceptLoop;
    private readonly Lock _gate = new();
    private Guid? _recordedCookie;

    private DiagnosticPortProxy(Socket listener, string sessionPort)
    {
        _listener = listener;
        _sessionPort = sessionPort;
        _acceptLoop = Task.Run(AcceptLoopAsync);
    }

    /// <summary>Listens on <paramref name="port"/> (a new socket file) and passes the recorded runtime on to <paramref name="sessionPort"/>.</summary>
    public static DiagnosticPortProxy Start(string port, string sessionPort)
    {
        var listener = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        try
        {
            listener.Bind(new UnixDomainSocketEndPoint(port));
            listener.Listen(64);
        }
        catch
        {
            listener.Dispose();
            throw;
        }
        return new DiagnosticPortProxy(listener, sessionPort);
    }

    /// <summary>The direct child: known only once it is started, which may be after its runtime has connected.</summary>
    public void Record(int processId) => _recordedPid.TrySetResult(processId);

    /// <summary>The other .NET processes that connected and were resumed (PIDs, in no order).</summary>
    public IReadOnlyCollection<int> ResumedProcessIds => [.. _resumed.Values.Distinct()];

    private async Task AcceptLoopAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            Socket connection;
            try { connection = await _listener.AcceptAsync(_stop.Token).ConfigureAwait(false); }
            catch (Exception ex) when (ex is OperationCanceledException or ObjectDisposedException or SocketException) { return; }
            _open[connection] = 0;
            _ = Task.Run(() => HandleAsync(connection));
        }
    }

    private async Task HandleAsync(Socket connection)
    {
        var keepOpen = false;
        try
        {
            var advertise = new byte[DiagnosticIpc.AdvertiseSize];
            using var handshake = CancellationTokenSource.CreateLinkedTokenSource(_stop.Token);
            handshake.CancelAfter(s_handshakeTimeout);
            await ReadExactlyAsync(connection, advertise, handshake.Token).ConfigureAwait(false);
            if (DiagnosticIpc.ParseAdvertise(advertise) is not { } runtime) return; // not a runtime: hang up
            var recordedPid = await _recordedPid.Task.WaitAsync(_stop.Token).ConfigureAwait(false);
            if (IsRecorded(runtime, recordedPid))
            {
                await ForwardAsync(connection, advertise).ConfigureAwait(false);
                return;
            }
            if (_resumed.TryAdd(runtime.Cookie, runtime.ProcessId))
            {
                if (!await ResumeAsync(connection, handshake.Token).ConfigureAwait(false)) _resumed.TryRemove(runtime.Cookie, out _);
                return;
            }
            // A resumed runtime reconnects at once for its next command: answering would make it spin; it waits here.
            keepOpen = !_stop.IsCancellationRequested; // after DisposeAsync's sweep nobody would close it
        }
        catch (Exception ex) when (ex is OperationCanceledException or ObjectDisposedException or SocketException or EndOfStreamException) { } // stopping, or the runtime hung up: the connection is closed below
        finally
        {
            if (!keepOpen) Close(connection);
        }
    }

    /// <summary>The child's PID and the first runtime instance seen there (a program that exec()s another keeps the PID).</summary>
    private bool IsRecorded(RuntimeAdvertise runtime, int recordedPid)
    {
        if (runtime.ProcessId != recordedPid) return false;
        lock (_gate)
        {
            _recordedCookie ??= runtime.Cookie;
            return _recordedCookie == runtime.Cookie;
        }
    }

    /// <summary>Sends ResumeRuntime and reads the whole answer, so the runtime has acted on it before the connection closes.</summary>
    private static async Task<bool> ResumeAsync(Socket connection, CancellationToken cancel)
    {
        await connection.SendAsync(DiagnosticIpc.ResumeRuntime(), SocketFlags.None, cancel).ConfigureAwait(false);
        var header = new byte[DiagnosticIpc.HeaderSize];
        await ReadExactlyAsync(connection, header, cancel).ConfigureAwait(false);
        var payload = DiagnosticIpc.PacketSize(header) - DiagnosticIpc.HeaderSize;
        if (payload is > 0 and <= 1024) await ReadExactlyAsync(connection, new byte[payload], cancel).ConfigureAwait(false);
        return DiagnosticIpc.IsOk(header);
    }

    private async Task ForwardAsync(Socket runtime, byte[] advertise)
    {
        var session = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        _open[session] = 0;
        try
        {
            await session.ConnectAsync(new UnixDomainSocketEndPoint(_sessionPort), _stop.Token).ConfigureAwait(false);
            await session.SendAsync(advertise, SocketFlags.None, _stop.Token).ConfigureAwait(false);
            // Half-closes pass through, so each side sees the other's end of stream (the trace's end included).
            await Task.WhenAll(RelayAsync(runtime, session, _stop.Token), RelayAsync(session, runtime, _stop.Token)).ConfigureAwait(false);
        }
        finally
        {
            Close(session);
        }
    }

    private static async Task RelayAsync(Socket from, Socket to, CancellationToken cancel)
    {
        var buffer = new byte[1 << 16];
        try
        {
            using var output = new NetworkStream(to, ownsSocket: false);
            int n;
            while ((n = await from.ReceiveAsync(buffer, SocketFlags.None, cancel).ConfigureAwait(false)) > 0)
                await output.WriteAsync(buffer.AsMemory(0, n), cancel).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is OperationCanceledException or ObjectDisposedException or SocketException or IOException) { } // one side hung up or the proxy stops: the copy ends
        try { to.Shutdown(SocketShutdown.Send); }
        catch (Exception ex) when (ex is ObjectDisposedException or SocketException) { } // the other side is gone already
    }

    private static async Task ReadExactlyAsync(Socket socket, Memory<byte> buffer, CancellationToken cancel)
    {
        for (var read = 0; read < buffer.Length;)
        {
            var n = await socket.ReceiveAsync(buffer[read..], SocketFlags.None, cancel).ConfigureAwait(false);
            if (n == 0) throw new EndOfStreamException();
            read += n;
        }
    }

    private void Close(Socket socket)
    {
        _open.TryRemove(socket, out _);
        socket.Dispose();
    }

    /// <summary>Stops listening and closes every connection (the socket file is the caller's to delete).</summary>
    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        _listener.Dispose();
        foreach (var socket in _open.Keys) Close(socket);
        try { await _acceptLoop.ConfigureAwait(false); }
        catch (Exception ex) when (ex is OperationCanceledException or ObjectDisposedException or SocketException) { } // the loop ends as the listener closes
        _stop.Dispose();
    }
}
