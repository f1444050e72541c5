using System.Diagnostics;
using EtwSerializerProfiler.Common;
using Microsoft.Diagnostics.NETCore.Client;

namespace EtwSerializerProfiler.Recorder.Heap;

/// <summary>
/// Writes one heap snapshot through the target's diagnostic IPC channel (DiagnosticsClient.WriteDump): the runtime
/// starts createdump (Linux, macOS) or writes a minidump (Windows) of itself. WithHeap holds the GC heap and what
/// ClrMD needs to read it, far less than a full dump. Never throws for a failed dump: the outcome is the result.
/// </summary>
public static class HeapDumpWriter
{
    public const DumpType Type = DumpType.WithHeap;

    public static async Task<HeapSnapshotInfo> WriteAsync(HeapSnapshotInfo snapshot, int processId, string folder, long workingSetBytes,
        string? runtimeDirectory, TimeSpan timeout, CancellationToken cancel)
    {
        var file = TraceFolderLayout.HeapDumpFileName(snapshot.Serializer, snapshot.Objects);
        var path = Path.Combine(folder, file);
        var result = snapshot with { File = file, DumpType = Type.ToString() };
        if (HeapDumpProblems.BeforeDump(path, workingSetBytes) is { } problem)
            return result with { Status = HeapSnapshotStatus.Failed, Error = problem, File = null };

        var stopwatch = Stopwatch.StartNew();
        string? error = null;
        using (var limit = CancellationTokenSource.CreateLinkedTokenSource(cancel))
        {
            limit.CancelAfter(timeout);
            try
            {
                await new DiagnosticsClient(processId).WriteDumpAsync(Type, path, logDumpGeneration: false, limit.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (!cancel.IsCancellationRequested)
            {
                error = $"the dump was not finished within {timeout.TotalSeconds:F0} s";
            }
            catch (Exception ex) when (ex is DiagnosticsClientException or IOException or UnauthorizedAccessException or TimeoutException
                or PlatformNotSupportedException or ArgumentException)
            {
                error = HeapDumpProblems.Explain($"the runtime could not write {file}: {ex.Message}", path, runtimeDirectory);
            }
        }
        var seconds = stopwatch.Elapsed.TotalSeconds;
        var bytes = File.Exists(path) ? new FileInfo(path).Length : 0;
        if (error is null && bytes == 0) error = $"the runtime reported success but {path} is missing or empty";
        if (error is not null)
        {
            FileCleanup.TryDelete(path); // a partial dump would only mislead the analysis
            return result with { Status = HeapSnapshotStatus.Failed, Error = error, File = null, DumpSeconds = seconds };
        }
        return result with { Status = HeapSnapshotStatus.Taken, DumpBytes = bytes, DumpSeconds = seconds };
    }
}
