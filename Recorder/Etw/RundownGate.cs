using System.IO.Pipes;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.Etw;

/// <summary>
/// The recorder's end of the <see cref="ExitHandshake"/>: a pipe created before the benchmark starts, on which the
/// benchmark announces that it is about to exit and then waits until <see cref="ReleaseAsync"/>. The ETW recorder
/// runs the CLR rundown in between, while the process can still answer it. Portable (named pipes work everywhere), so
/// the handshake is tested on Linux with the real benchmark; only the rundown itself needs Windows.
/// </summary>
public sealed class RundownGate : IRecordingParticipant, IAsyncDisposable
{
    private readonly NamedPipeServerStream _server;
    private StreamWriter? _writer;

    public string PipeName { get; }

    public RundownGate()
    {
        PipeName = $"esp-exit-{Environment.ProcessId}-{Guid.NewGuid():N}";
        // CurrentUserOnly: another user's process cannot connect and pose as the benchmark.
        _server = new NamedPipeServerStream(PipeName, PipeDirection.InOut, 1, PipeTransmissionMode.Byte,
            PipeOptions.Asynchronous | PipeOptions.CurrentUserOnly);
    }

    /// <summary>Added to the benchmark's command line.</summary>
    public IReadOnlyList<string> BenchmarkArguments => ["--" + ExitHandshake.Option, PipeName];

    /// <summary>
    /// Completes with the process id the benchmark announced once it is about to exit; null when the pipe closed
    /// without an announcement (the benchmark crashed or never connected). Cancelled by <paramref name="cancel"/>.
    /// </summary>
    public async Task<int?> WaitForExitingAsync(CancellationToken cancel)
    {
        try
        {
            await _server.WaitForConnectionAsync(cancel).ConfigureAwait(false);
            var reader = new StreamReader(_server);
            _writer = new StreamWriter(_server) { AutoFlush = true, NewLine = "\n" };
            var line = await reader.ReadLineAsync(cancel).ConfigureAwait(false);
            return ExitHandshake.ParseExiting(line);
        }
        catch (IOException)
        {
            return null;
        }
    }

    /// <summary>Lets the benchmark exit. A benchmark that already gave up and left is not an error.</summary>
    public async Task ReleaseAsync()
    {
        if (_writer is null) return;
        try { await _writer.WriteLineAsync(ExitHandshake.Go).ConfigureAwait(false); }
        catch (IOException) { } // the benchmark left already
        catch (ObjectDisposedException) { } // the pipe is closed: the benchmark left already
    }

    public async ValueTask DisposeAsync()
    {
        if (_writer is not null)
        {
            try { await _writer.DisposeAsync().ConfigureAwait(false); } catch (IOException) { } // the benchmark closed its end first
        }
        await _server.DisposeAsync().ConfigureAwait(false);
    }
}
