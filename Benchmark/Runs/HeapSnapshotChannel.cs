using System.IO.Pipes;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>
/// The benchmark's end of the heap snapshot handshake (<see cref="HeapSnapshotProtocol"/>): say "ready", block until
/// the recorder says "done" or the timeout passes, never longer. Once a wait has timed out the channel is not used
/// again: a late "done" could otherwise be taken for the answer to the next request.
/// </summary>
public sealed class HeapSnapshotChannel : IDisposable
{
    private readonly NamedPipeClientStream _pipe;
    private readonly StreamReader _reader;
    private readonly StreamWriter _writer;
    private int _sequence;
    private string? _broken;

    private HeapSnapshotChannel(NamedPipeClientStream pipe)
    {
        _pipe = pipe;
        _reader = new StreamReader(pipe);
        _writer = new StreamWriter(pipe) { AutoFlush = true, NewLine = "\n" };
    }

    /// <summary>Connects to the recorder's pipe; null with a reason when it is not there.</summary>
    public static HeapSnapshotChannel? Connect(string pipeName, TimeSpan timeout, out string? error)
    {
        // CurrentUserOnly: only a process of the same user may be the other end (the recorder checks the same).
        var pipe = new NamedPipeClientStream(".", pipeName, PipeDirection.InOut, PipeOptions.CurrentUserOnly);
        try
        {
            pipe.Connect(timeout);
            error = null;
            return new HeapSnapshotChannel(pipe);
        }
        catch (Exception ex) when (ex is TimeoutException or IOException or UnauthorizedAccessException)
        {
            pipe.Dispose();
            error = $"could not connect to the recorder's pipe '{pipeName}' within {timeout.TotalSeconds:F0} s: {ex.Message}";
            return null;
        }
    }

    public void SendPlan(List<HeapSnapshotInfo> planned) => TrySend(new HeapSnapshotMessage
    {
        Kind = HeapSnapshotProtocol.Plan,
        Planned = planned,
        ProcessId = Environment.ProcessId,
        RuntimeDirectory = System.Runtime.InteropServices.RuntimeEnvironment.GetRuntimeDirectory(),
    });

    /// <summary>Blocks until the recorder has written the dump (or failed to); returns the snapshot with its outcome.</summary>
    public HeapSnapshotInfo RequestSnapshot(HeapSnapshotInfo snapshot, TimeSpan timeout, CancellationToken interrupt = default)
    {
        if (_broken is not null) return snapshot with { Status = HeapSnapshotStatus.Failed, Error = _broken };
        var sequence = ++_sequence;
        var sent = TrySend(new HeapSnapshotMessage
        {
            Kind = HeapSnapshotProtocol.Ready,
            Sequence = sequence,
            Snapshot = snapshot,
            ProcessId = Environment.ProcessId,
            WorkingSetBytes = Environment.WorkingSet,
        });
        if (!sent) return snapshot with { Status = HeapSnapshotStatus.Failed, Error = _broken };

        // Ctrl+C must not wait out the timeout: the runner then stops and still writes its results.
        using var cancel = CancellationTokenSource.CreateLinkedTokenSource(interrupt);
        cancel.CancelAfter(timeout);
        try
        {
            while (true)
            {
                // Synchronous wait on purpose: nothing else may run (or allocate) while the dump is being written.
                var line = _reader.ReadLineAsync(cancel.Token).AsTask().GetAwaiter().GetResult();
                if (line is null)
                {
                    _broken = "the recorder closed the heap snapshot pipe before answering";
                    return snapshot with { Status = HeapSnapshotStatus.Failed, Error = _broken };
                }
                var reply = HeapSnapshotProtocol.Deserialize<HeapSnapshotMessage>(line);
                if (reply.Kind == HeapSnapshotProtocol.Done && reply.Sequence == sequence && reply.Snapshot is { } done) return done;
            }
        }
        catch (OperationCanceledException)
        {
            _broken = interrupt.IsCancellationRequested
                ? "interrupted while waiting for the dump"
                : $"the recorder did not answer within {timeout.TotalSeconds:F0} s; later snapshots are skipped";
            return snapshot with { Status = HeapSnapshotStatus.Failed, Error = _broken };
        }
        catch (Exception ex) when (ex is IOException or System.Text.Json.JsonException or InvalidDataException)
        {
            _broken = $"heap snapshot pipe failed: {ex.Message}";
            return snapshot with { Status = HeapSnapshotStatus.Failed, Error = _broken };
        }
    }

    private bool TrySend(HeapSnapshotMessage message)
    {
        try
        {
            _writer.WriteLine(HeapSnapshotProtocol.Serialize(message));
            return true;
        }
        catch (IOException ex)
        {
            _broken = $"could not write to the heap snapshot pipe: {ex.Message}";
            return false;
        }
    }

    public void Dispose()
    {
        // The writer flushes nothing (AutoFlush); a pipe the recorder already closed must not fail the benchmark's exit.
        try { _writer.Dispose(); } catch (IOException) { } // the recorder closed the pipe first
        _reader.Dispose();
        _pipe.Dispose();
    }
}
