using System.Diagnostics;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.EventPipe;

/// <summary>
/// Copies the session's event stream into the trace file. When a write fails (the disk is full, an I/O error, the
/// folder removed) it records where (<see cref="Cut"/>) and goes on reading the stream into nothing: the runtime then
/// never blocks on a full socket, so the session can still be stopped cleanly and the child can end.
/// </summary>
public sealed class TraceStreamWriter
{
    private readonly TaskCompletionSource<(RecordingStatus Status, RecordingCut Cut)> _cut = new(TaskCreationOptions.RunContinuationsAsynchronously);

    private readonly Func<string?>? _nearlyFull;

    private TraceStreamWriter(Stream source, FileStream file, Stopwatch clock, Func<string?>? nearlyFull)
    {
        _nearlyFull = nearlyFull;
        Completion = CopyAsync(source, file, clock);
    }

    /// <summary>Ends when the stream ends; faults only when reading the stream fails.</summary>
    public Task Completion { get; }

    /// <summary>Completes at the first failed write, with DiskFull or WriteFailed and where the trace was cut.</summary>
    public Task<(RecordingStatus Status, RecordingCut Cut)> Cut => _cut.Task;

    /// <summary>
    /// Cuts the trace here without a failed write (the disk is nearly full): later blocks are drained, not written.
    /// </summary>
    public void CutNow(RecordingStatus status, string reason, Stopwatch clock, FileStream file)
    {
        long bytes;
        try { bytes = file.Length; } catch (Exception ex) when (ex is IOException or ObjectDisposedException) { bytes = 0; }
        _cut.TrySetResult((status, new RecordingCut { Reason = reason, AtSeconds = clock.Elapsed.TotalSeconds, AtUtc = DateTime.UtcNow, TraceBytes = bytes }));
    }

    /// <param name="nearlyFull">
    /// Asked before each block is written: a reason cuts the trace there. A poll alone can be late on a busy machine,
    /// and then EventPipe takes the last bytes perf needs to finish its file.
    /// </param>
    public static TraceStreamWriter Start(Stream source, FileStream file, Stopwatch clock, Func<string?>? nearlyFull = null) => new(source, file, clock, nearlyFull);

    private async Task CopyAsync(Stream source, FileStream file, Stopwatch clock)
    {
        var buffer = new byte[81920];
        int read;
        while ((read = await source.ReadAsync(buffer, CancellationToken.None).ConfigureAwait(false)) > 0)
        {
            if (_cut.Task.IsCompleted) continue; // drained: the file keeps what reached the disk
            if (_nearlyFull?.Invoke() is { } low)
            {
                CutNow(RecordingStatus.DiskFull, low, clock, file);
                continue;
            }
            try
            {
                await file.WriteAsync(buffer.AsMemory(0, read), CancellationToken.None).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ObjectDisposedException)
            {
                long bytes;
                try { bytes = file.Length; } catch (Exception ex2) when (ex2 is IOException or ObjectDisposedException) { bytes = file.Position; }
                _cut.TrySetResult((IsDiskFull(ex) ? RecordingStatus.DiskFull : RecordingStatus.WriteFailed,
                    new RecordingCut { Reason = ex.Message, AtSeconds = clock.Elapsed.TotalSeconds, AtUtc = DateTime.UtcNow, TraceBytes = bytes }));
            }
        }
    }

    /// <summary>ENOSPC (28) and EDQUOT (122) on Unix; ERROR_HANDLE_DISK_FULL (39) and ERROR_DISK_FULL (112) on Windows.</summary>
    public static bool IsDiskFull(Exception ex) => (ex.HResult & 0xFFFF) is 28 or 122 or 39 or 112
        || ex.Message.Contains("No space left", StringComparison.OrdinalIgnoreCase)
        || ex.Message.Contains("quota exceeded", StringComparison.OrdinalIgnoreCase)
        || ex.Message.Contains("not enough space", StringComparison.OrdinalIgnoreCase);
}
