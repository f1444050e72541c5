using System.Globalization;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder;

/// <summary>A recording's folder: its file names are <see cref="TraceFolderLayout"/>'s, which the analyzer reads too.</summary>
public sealed class TraceFolder(string path)
{
    public string Path { get; } = System.IO.Path.GetFullPath(path);
    public string Trace => System.IO.Path.Combine(Path, TraceFolderLayout.Trace);
    public string Etl => System.IO.Path.Combine(Path, TraceFolderLayout.Etl);
    public string Manifest => System.IO.Path.Combine(Path, TraceFolderLayout.Manifest);
    public string ResultsJson => System.IO.Path.Combine(Path, TraceFolderLayout.ResultsJson);
    public string ResultsCsv => System.IO.Path.Combine(Path, TraceFolderLayout.ResultsCsv);
    public string StackTags => System.IO.Path.Combine(Path, TraceFolderLayout.StackTags);
    public string KernelData => System.IO.Path.Combine(Path, TraceFolderLayout.KernelData);
    public string KernelScript => System.IO.Path.Combine(Path, TraceFolderLayout.KernelScript);

    /// <summary>traces/yyyyMMdd-HHmmss[-n]: unique even when two recordings start in the same second.</summary>
    public static TraceFolder CreateDefault(string root = "traces")
    {
        var stamp = DateTime.Now.ToString("yyyyMMdd-HHmmss", CultureInfo.InvariantCulture);
        for (var n = 0; ; n++)
        {
            var candidate = System.IO.Path.Combine(root, n == 0 ? stamp : $"{stamp}-{n}");
            if (TryCreateNew(candidate)) return new TraceFolder(candidate);
        }
    }

    /// <summary>An explicit --out: created if missing; an existing folder must not already hold a trace.</summary>
    public static TraceFolder CreateExplicit(string path)
    {
        var folder = new TraceFolder(path);
        Directory.CreateDirectory(folder.Path);
        if (File.Exists(folder.Trace) || File.Exists(folder.Etl))
            throw new Common.UsageException($"{folder.Path} already holds a trace; choose another --out or delete it");
        return folder;
    }

    private static bool TryCreateNew(string path)
    {
        if (Directory.Exists(path)) return false;
        try
        {
            Directory.CreateDirectory(System.IO.Path.GetDirectoryName(System.IO.Path.GetFullPath(path))!);
            // Directory.CreateDirectory succeeds on an existing folder, so claim the name with a marker file.
            Directory.CreateDirectory(path);
            using var claim = new FileStream(System.IO.Path.Combine(path, ".recording"), FileMode.CreateNew);
            return true;
        }
        catch (IOException)
        {
            return false;
        }
    }

    /// <summary>Removes the folder if the recording never produced anything worth keeping.</summary>
    public void DeleteIfEmpty()
    {
        File.Delete(System.IO.Path.Combine(Path, ".recording"));
        if (Directory.Exists(Path) && !Directory.EnumerateFileSystemEntries(Path).Any()) Directory.Delete(Path);
    }

    public void MarkFinished() => File.Delete(System.IO.Path.Combine(Path, ".recording"));

    private string SessionsReserve => System.IO.Path.Combine(Path, ".reserve-sessions");
    private string ManifestReserve => System.IO.Path.Combine(Path, ".reserve-manifest");

    /// <summary>
    /// Claims room in the folder (written, so a lazily allocating file system counts it) for when the disk fills:
    /// <paramref name="forSessions"/> is freed at the cut (perf's last write, the benchmark's results),
    /// <paramref name="forManifest"/> once the sessions have ended (the manifest, the stack tags).
    /// </summary>
    public void Reserve(long forSessions, long forManifest)
    {
        try
        {
            Fill(ManifestReserve, forManifest);
            Fill(SessionsReserve, forSessions);
        }
        catch (IOException ex)
        {
            ReleaseReserve();
            throw new Common.DiskFullException($"could not set aside {(forSessions + forManifest) / 1048576.0:F1} MB at {Path} ({ex.Message}); free some space or choose another --out");
        }
    }

    private static void Fill(string path, long bytes)
    {
        using var file = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.None, 0);
        var block = new byte[64 * 1024];
        for (long written = 0; written < bytes; written += block.Length) file.Write(block);
        file.Flush(flushToDisk: true);
    }

    /// <summary>At the cut: room for the sessions to end.</summary>
    public void ReleaseSessionsReserve() => FileCleanup.TryDelete(SessionsReserve);

    public void ReleaseReserve()
    {
        FileCleanup.TryDelete(SessionsReserve);
        FileCleanup.TryDelete(ManifestReserve);
    }
}
