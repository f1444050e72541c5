using System.IO.Pipes;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.EventPipe;

/// <summary>
/// The recorder's end of the <see cref="TracingCostHandshake"/>: a pipe created before the benchmark starts, on which
/// the benchmark asks for tracing off and on between its tracing-cost blocks. <see cref="ServeAsync"/> runs the
/// answer the caller gives (stopping or starting sessions) and then replies; it ends when the benchmark says done
/// or goes away.
/// </summary>
public sealed class TracingCostGate : IRecordingParticipant, IAsyncDisposable
{
    private readonly NamedPipeServerStream _server;

    public string PipeName { get; }

    public TracingCostGate()
    {
        PipeName = $"esp-cost-{Environment.ProcessId}-{Guid.NewGuid():N}";
        _server = new NamedPipeServerStream(PipeName, PipeDirection.InOut, 1, PipeTransmissionMode.Byte,
            PipeOptions.Asynchronous | PipeOptions.CurrentUserOnly);
    }

    /// <summary>Added to the benchmark's command line.</summary>
    public IReadOnlyList<string> BenchmarkArguments => ["--" + TracingCostHandshake.Option, PipeName];

    /// <param name="setTracing">Turns tracing on (true) or off (false) and completes when it is so; returns why not, or null.</param>
    /// <param name="done">Called once the blocks are over, or the benchmark went away.</param>
    public async Task ServeAsync(Func<bool, Task<string?>> setTracing, Func<Task> done, CancellationToken cancel)
    {
        try
        {
            await _server.WaitForConnectionAsync(cancel).ConfigureAwait(false);
            var reader = new StreamReader(_server);
            var writer = new StreamWriter(_server) { AutoFlush = true, NewLine = "\n" };
            while (await reader.ReadLineAsync(cancel).ConfigureAwait(false) is { } line)
            {
                switch (line)
                {
                    case TracingCostHandshake.AskUntraced or TracingCostHandshake.AskTraced:
                        var traced = line == TracingCostHandshake.AskTraced;
                        var problem = await setTracing(traced).ConfigureAwait(false);
                        await writer.WriteLineAsync(problem is not null ? "failed: " + problem
                            : traced ? TracingCostHandshake.Traced : TracingCostHandshake.Untraced).ConfigureAwait(false);
                        break;
                    case TracingCostHandshake.Done:
                        await done().ConfigureAwait(false);
                        await writer.WriteLineAsync(TracingCostHandshake.Done).ConfigureAwait(false);
                        return;
                    default:
                        await writer.WriteLineAsync("unknown").ConfigureAwait(false);
                        break;
                }
            }
        }
        catch (Exception ex) when (ex is IOException or OperationCanceledException or ObjectDisposedException) { } // the benchmark closed the pipe or the recording stops
        await done().ConfigureAwait(false);
    }

    public async ValueTask DisposeAsync() => await _server.DisposeAsync().ConfigureAwait(false);
}
