using System.Globalization;
using System.IO.Pipes;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.Heap;

/// <summary>
/// The recorder's end of the heap snapshot handshake (<see cref="HeapSnapshotProtocol"/>). Created before the
/// benchmark starts, so the benchmark always finds the pipe; for each "ready" it writes the dump into the trace
/// folder and answers "done" with the outcome. Whatever the benchmark never asked for is reported as not reached.
/// </summary>
public sealed class HeapSnapshotListener : IRecordingParticipant, IAsyncDisposable
{
    private readonly HeapRequest _request;
    private readonly TraceFolder _folder;
    private readonly IProgress<string>? _progress;
    private readonly TimeSpan _dumpTimeout;
    private readonly NamedPipeServerStream _server;
    private readonly CancellationTokenSource _stop = new();
    private readonly List<HeapSnapshotInfo> _outcomes = [];
    private List<HeapSnapshotInfo>? _planned;
    private string? _runtimeDirectory;
    private Task? _loop;

    public string PipeName { get; }

    private HeapSnapshotListener(HeapRequest request, TraceFolder folder, IProgress<string>? progress, TimeSpan dumpTimeout)
    {
        _request = request;
        _folder = folder;
        _progress = progress;
        _dumpTimeout = dumpTimeout;
        PipeName = $"esp-heap-{Environment.ProcessId}-{Guid.NewGuid():N}";
        // CurrentUserOnly: another user's process cannot connect and ask for (or answer) dumps.
        _server = new NamedPipeServerStream(PipeName, PipeDirection.InOut, 1, PipeTransmissionMode.Byte,
            PipeOptions.Asynchronous | PipeOptions.CurrentUserOnly);
        // On Unix the pipe is a socket file in the temp folder: removed even if esp is killed.
        if (!OperatingSystem.IsWindows()) ExitJanitor.DeleteOnExit(Path.Combine(Path.GetTempPath(), "CoreFxPipe_" + PipeName));
    }

    /// <summary>Null when the benchmark arguments ask for no heap snapshot.</summary>
    public static HeapSnapshotListener? For(HeapRequest? request, TraceFolder folder, IProgress<string>? progress, TimeSpan? dumpTimeout = null) =>
        request is null ? null : new HeapSnapshotListener(request, folder, progress, dumpTimeout ?? HeapSnapshotProtocol.DefaultDumpTimeout);

    /// <summary>Added to the benchmark's command line: where to connect, and a wait that outlasts the dump timeout.</summary>
    public IReadOnlyList<string> BenchmarkArguments =>
    [
        BenchmarkArgs.HeapPipeFlag, PipeName,
        BenchmarkArgs.HeapTimeoutFlag, ((int)Math.Ceiling((_dumpTimeout + HeapSnapshotProtocol.BenchmarkWaitMargin).TotalSeconds)).ToString(CultureInfo.InvariantCulture),
    ];

    public void Start(CancellationToken cancel)
    {
        var linked = CancellationTokenSource.CreateLinkedTokenSource(cancel, _stop.Token);
        _loop = Task.Run(async () =>
        {
            using (linked) await ServeAsync(linked.Token).ConfigureAwait(false);
        }, CancellationToken.None);
    }

    /// <summary>The manifest's "heapSnapshots": <see cref="FinishAsync"/>.</summary>
    public async Task<TraceManifest> ManifestAsync(TraceManifest manifest) => manifest with { HeapSnapshots = await FinishAsync().ConfigureAwait(false) };

    /// <summary>After the child has exited: the outcome of every requested snapshot, in the order they were taken.</summary>
    public async Task<List<HeapSnapshotInfo>> FinishAsync()
    {
        if (_loop is not null)
        {
            // The child is gone, so the pipe is at end-of-stream; if it never connected, it never will (a connection
            // still in flight gets a moment), so stop waiting for it.
            var grace = TimeSpan.FromSeconds(_server.IsConnected ? 10 : 1);
            if (await Task.WhenAny(_loop, Task.Delay(grace)).ConfigureAwait(false) != _loop)
                await _stop.CancelAsync().ConfigureAwait(false);
            await _loop.ConfigureAwait(false);
        }
        var all = new List<HeapSnapshotInfo>(_outcomes);
        var planned = _planned ?? [.. _request.Serializers.Select(s => new HeapSnapshotInfo { Serializer = s, Data = "?", Objects = _request.Objects })];
        foreach (var p in planned)
        {
            if (all.Any(o => o.Serializer.Equals(p.Serializer, StringComparison.OrdinalIgnoreCase) && o.Objects == p.Objects)) continue;
            all.Add(p with
            {
                Status = HeapSnapshotStatus.NotReached,
                Error = _planned is null
                    ? "the benchmark never connected to the recorder's pipe (it failed or ended before its first run: see its output)"
                    : "the benchmark did not reach this snapshot point (serializer unsupported for this data, failed, or the run ended early: see results.json)",
            });
        }
        return all;
    }

    /// <summary>One line per snapshot for the record command's summary.</summary>
    public static string Describe(HeapSnapshotInfo s) => s.Status == HeapSnapshotStatus.Taken
        ? $"  heap snapshot {s.Serializer} N={s.Objects}: {s.File} ({(s.DumpBytes ?? 0) / 1048576.0:F1} MB in {s.DumpSeconds:F1} s)"
        : $"  heap snapshot {s.Serializer} N={s.Objects} {s.Status}: {s.Error}";

    private async Task ServeAsync(CancellationToken cancel)
    {
        try
        {
            await _server.WaitForConnectionAsync(cancel).ConfigureAwait(false);
            using var reader = new StreamReader(_server, leaveOpen: true);
            await using var writer = new StreamWriter(_server, leaveOpen: true) { AutoFlush = true, NewLine = "\n" };
            while (await reader.ReadLineAsync(cancel).ConfigureAwait(false) is { } line)
            {
                var message = HeapSnapshotProtocol.Deserialize<HeapSnapshotMessage>(line);
                if (message.Kind == HeapSnapshotProtocol.Plan)
                {
                    _planned = message.Planned ?? [];
                    _runtimeDirectory = message.RuntimeDirectory;
                }
                else if (message.Kind == HeapSnapshotProtocol.Ready && message.Snapshot is { } snapshot)
                {
                    _progress?.Report($"heap snapshot {snapshot.Serializer} N={snapshot.Objects}: writing the dump of process {message.ProcessId}...");
                    var outcome = await HeapDumpWriter.WriteAsync(snapshot, message.ProcessId, _folder.Path, message.WorkingSetBytes,
                        _runtimeDirectory, _dumpTimeout, cancel).ConfigureAwait(false);
                    _outcomes.Add(outcome);
                    _progress?.Report(Describe(outcome).Trim());
                    await writer.WriteLineAsync(HeapSnapshotProtocol.Serialize(new HeapSnapshotMessage
                    {
                        Kind = HeapSnapshotProtocol.Done,
                        Sequence = message.Sequence,
                        Snapshot = outcome,
                    })).ConfigureAwait(false);
                }
            }
        }
        catch (OperationCanceledException) when (cancel.IsCancellationRequested)
        {
            // The child never connected, or Ctrl+C: FinishAsync reports what is missing.
        }
        catch (Exception ex) when (ex is IOException or System.Text.Json.JsonException or InvalidDataException)
        {
            // The child died mid-conversation (broken pipe) or wrote garbage: keep what was taken.
            _progress?.Report($"heap snapshot pipe: {ex.Message}");
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        if (_loop is not null) await _loop.ConfigureAwait(false);
        await _server.DisposeAsync().ConfigureAwait(false);
        _stop.Dispose();
    }
}
