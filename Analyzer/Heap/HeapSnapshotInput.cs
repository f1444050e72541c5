using System.Text.Json;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Heap;

/// <summary>One dump to read, with what the recorder wrote about it (null for a dump given on its own).</summary>
public sealed record HeapSnapshotFile(string Path, HeapSnapshotInfo? Recorded);

/// <summary>
/// Resolves what `esp heap` was pointed at: a dump file, or a trace folder whose manifest lists the snapshots
/// (taken or not). Dumps in the folder that the manifest does not list (copied in by hand) are read too.
/// </summary>
public sealed record HeapSnapshotInput(string DisplayName, IReadOnlyList<HeapSnapshotFile> Dumps, IReadOnlyList<HeapSnapshotInfo> NotTaken)
{
    public static HeapSnapshotInput Open(string path)
    {
        if (File.Exists(path)) return new HeapSnapshotInput(path, [new HeapSnapshotFile(path, null)], []);
        if (!Directory.Exists(path)) throw new BadInputException($"{path}: no such file or folder");

        var recorded = ReadManifest(path);
        var dumps = recorded
            .Where(r => r.Status == HeapSnapshotStatus.Taken && r.File is not null && File.Exists(System.IO.Path.Combine(path, r.File)))
            .Select(r => new HeapSnapshotFile(System.IO.Path.Combine(path, r.File!), r))
            .ToList();
        var listed = dumps.Select(d => System.IO.Path.GetFileName(d.Path)).ToHashSet(StringComparer.Ordinal);
        dumps.AddRange(Directory.EnumerateFiles(path, TraceFolderLayout.HeapDumpPattern).Order(StringComparer.Ordinal)
            .Where(f => !listed.Contains(System.IO.Path.GetFileName(f)))
            .Select(f => new HeapSnapshotFile(f, null)));
        var notTaken = recorded.Where(r => r.Status != HeapSnapshotStatus.Taken).ToList();
        var missing = recorded.Where(r => r.Status == HeapSnapshotStatus.Taken && (r.File is null || !File.Exists(System.IO.Path.Combine(path, r.File))))
            .Select(r => r with { Status = HeapSnapshotStatus.Failed, Error = $"{r.File} was taken but is no longer in the folder" });
        notTaken.AddRange(missing);
        if (dumps.Count == 0 && notTaken.Count == 0)
            throw new BadInputException($"{path}: no heap snapshots in this folder (record with `esp record --heap SERIALIZER`)");
        return new HeapSnapshotInput(path, dumps, notTaken);
    }

    /// <summary>
    /// Only the heapSnapshots part of manifest.json (<see cref="TraceManifest.HeapSnapshots"/>), read on its own: a
    /// manifest damaged elsewhere, or missing fields the whole record requires, still lists its snapshots.
    /// </summary>
    private static readonly string HeapSnapshotsProperty = TraceManifest.JsonOptions.PropertyNamingPolicy!.ConvertName(nameof(TraceManifest.HeapSnapshots));

    private static List<HeapSnapshotInfo> ReadManifest(string folder)
    {
        var manifest = System.IO.Path.Combine(folder, TraceFolderLayout.Manifest);
        if (!File.Exists(manifest)) return [];
        try
        {
            using var doc = JsonDocument.Parse(File.ReadAllText(manifest));
            var snapshots = doc.RootElement.ValueKind == JsonValueKind.Object && doc.RootElement.TryGetProperty(HeapSnapshotsProperty, out var list) && list.ValueKind == JsonValueKind.Array
                ? TraceManifest.ParseHeapSnapshots(list) ?? []
                : [];
            // A manifest names dumps in its own folder; a name with a folder part (../x.dmp) is not read.
            return snapshots.OfType<HeapSnapshotInfo>()
                .Select(s => s with { Serializer = s.Serializer ?? "?", Data = s.Data ?? "?" }) // JSON null passes "required"
                .Select(s => s.File is { } f && (f.Length == 0 || System.IO.Path.GetFileName(f) != f || f is "." or "..")
                    ? s with { File = null, Status = HeapSnapshotStatus.Failed, Error = $"manifest names '{f}', which is not a file in this folder" }
                    : s)
                .ToList();
        }
        catch (Exception ex) when (ex is JsonException or NotSupportedException or InvalidOperationException)
        {
            throw new BadInputException($"{manifest}: not readable ({ex.Message})", ex);
        }
    }
}
