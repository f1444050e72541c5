using System.IO.Compression;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Input;

public enum TraceFormat { NetTrace, Etl }

/// <summary>
/// Resolves what the user pointed at (a trace folder, a .nettrace, a .zip holding one, an .etl) into the trace
/// file plus the folder's companions (benchmark results, stack tags), and rejects anything else with one line.
/// </summary>
public sealed class TraceInput : IDisposable
{
    private static readonly byte[] NetTraceMagic = "Nettrace"u8.ToArray();
    private string? _extractedDir;

    public required string DisplayName { get; init; }
    public required string TracePath { get; init; }
    public required TraceFormat Format { get; init; }
    public string? ResultsPath { get; init; }
    public string? StackTagsPath { get; init; }
    public string? ManifestPath { get; init; }
    /// <summary>The Linux kernel session's `perf script` text (TraceFolderLayout.KernelScript).</summary>
    public string? KernelScriptPath { get; init; }
    /// <summary>perf's own file of the kernel session (TraceFolderLayout.KernelData): `--symbols` runs perf script on it again.</summary>
    public string? KernelDataPath { get; init; }
    /// <summary>The exceptions without stacks (TraceFolderLayout.ExceptionsTrace); null in older recordings.</summary>
    public string? ExceptionsPath { get; init; }
    /// <summary>The sampled exception stacks (TraceFolderLayout.ExceptionStacksPattern), in window order; empty without.</summary>
    public IReadOnlyList<string> ExceptionStackPaths { get; init; } = [];
    /// <summary>The stack keywords' events, with stacks (TraceFolderLayout.StacksTrace), when the trace has none; null in older recordings.</summary>
    public string? StacksPath { get; init; }
    /// <summary>A .NET Core 2.x EventPipe file (.netperf, format before "Nettrace"), read by the same TraceEvent path.</summary>
    public bool NetPerf { get; init; }

    private readonly Lazy<byte[]?> _manifest;

    public TraceInput() => _manifest = new(() =>
    {
        if (ManifestPath is not { } path || !File.Exists(path)) return null;
        try { return FileReads.Bytes(path); }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { return null; }
    });

    /// <summary>manifest.json's bytes, read once for all its readers; null without one or when it cannot be read.</summary>
    public byte[]? ManifestBytes => _manifest.Value;

    public static TraceInput Open(string path)
    {
        if (Directory.Exists(path)) return FromFolder(path);
        if (!File.Exists(path)) throw new BadInputException($"{path}: no such file or folder");
        var ext = Path.GetExtension(path).ToLowerInvariant();
        if (ext == ".zip") return FromZip(path);
        if (ext == ".etl")
        {
            if (!OperatingSystem.IsWindows())
                throw new BadInputException($"{path}: .etl files can only be read on Windows (ETW); record with EventPipe (.nettrace) here, or convert to .etlx on Windows");
            return WithCompanions(path, path, Path.GetDirectoryName(Path.GetFullPath(path))!, TraceFormat.Etl);
        }
        var netPerf = CheckNetTrace(path);
        return WithCompanions(path, path, Path.GetDirectoryName(Path.GetFullPath(path))!, netPerf: netPerf);
    }

    private static TraceInput FromFolder(string dir)
    {
        var nettrace = Path.Combine(dir, TraceFolderLayout.Trace);
        var etl = Path.Combine(dir, TraceFolderLayout.Etl);
        string trace;
        if (File.Exists(nettrace)) trace = nettrace;
        else if (File.Exists(etl)) return Open(etl);
        else
        {
            // Several traces and none named trace.nettrace: which one was meant is the user's call, not ours.
            var found = Directory.EnumerateFiles(dir, "*.nettrace").Where(f => !TraceFolderLayout.IsSideFile(Path.GetFileName(f))).Order(StringComparer.Ordinal).ToList();
            if (found.Count == 0) throw new BadInputException($"{dir}: no {TraceFolderLayout.Trace}, {TraceFolderLayout.Etl} or *.nettrace in this folder");
            if (found.Count > 1) throw new BadInputException($"{dir}: {found.Count} traces and no {TraceFolderLayout.Trace} ({Names(found.Select(Path.GetFileName))}): pass one of them");
            trace = found[0];
        }
        CheckNetTrace(trace);
        return WithCompanions(dir, trace, dir);
    }

    /// <summary>A trace and what the recorder leaves beside it: benchmark results, stack tags, manifest.</summary>
    private static TraceInput WithCompanions(string displayName, string trace, string dir, TraceFormat format = TraceFormat.NetTrace, string? extractedDir = null, bool netPerf = false) => new()
    {
        DisplayName = displayName,
        TracePath = trace,
        Format = format,
        NetPerf = netPerf,
        ResultsPath = Companion(dir, TraceFolderLayout.ResultsJson),
        StackTagsPath = Companion(dir, TraceFolderLayout.StackTags),
        ManifestPath = Companion(dir, TraceFolderLayout.Manifest),
        KernelScriptPath = Companion(dir, TraceFolderLayout.KernelScript),
        KernelDataPath = Companion(dir, TraceFolderLayout.KernelData),
        // Only beside the recording's own trace: another .nettrace in the folder is not the one they were recorded with.
        ExceptionsPath = Path.GetFileName(trace) == TraceFolderLayout.Trace ? Companion(dir, TraceFolderLayout.ExceptionsTrace) : null,
        ExceptionStackPaths = Path.GetFileName(trace) == TraceFolderLayout.Trace && Directory.Exists(dir)
            ? Directory.GetFiles(dir, TraceFolderLayout.ExceptionStacksPattern).Order(StringComparer.Ordinal).ToList() : [],
        StacksPath = Path.GetFileName(trace) == TraceFolderLayout.Trace ? Companion(dir, TraceFolderLayout.StacksTrace) : null,
        _extractedDir = extractedDir,
    };

    /// <summary>
    /// A zip holding one trace, alone or in a trace folder. Only that trace and its companions are extracted (into a
    /// temp folder removed on Dispose); an entry that would land outside that folder is refused by name before
    /// anything is written, and a zip holding several traces asks which one.
    /// </summary>
    private static TraceInput FromZip(string zipPath)
    {
        var dir = EspTempFiles.NewPath("-zip");
        try
        {
            using var zip = OpenZip(zipPath);
            var entries = zip.Entries.Where(e => e.FullName.Length > 0 && !e.FullName.EndsWith('/') && !e.FullName.EndsWith('\\')).ToList();
            foreach (var e in zip.Entries)
                if (Escapes(e.FullName)) throw new BadInputException($"{zipPath}: entry '{e.FullName}' would be extracted outside the extraction folder: refused");
            var traces = entries.Where(e => e.FullName.EndsWith(".nettrace", StringComparison.OrdinalIgnoreCase)
                && !TraceFolderLayout.IsSideFile(Path.GetFileName(e.FullName.Replace('\\', '/')))).OrderBy(e => e.FullName, StringComparer.Ordinal).ToList();
            if (traces.Count == 0)
            {
                var nested = entries.FirstOrDefault(e => e.FullName.EndsWith(".zip", StringComparison.OrdinalIgnoreCase));
                throw new BadInputException(nested is null
                    ? $"{zipPath}: the zip holds no .nettrace file"
                    : $"{zipPath}: the zip holds no .nettrace file, only another zip ('{nested.FullName}'): extract that one and pass it");
            }
            if (traces.Count > 1)
                throw new BadInputException($"{zipPath}: the zip holds {traces.Count} traces ({Names(traces.Select(t => t.FullName))}): extract it and pass one of them");

            var trace = traces[0];
            var folder = Folder(trace.FullName);
            CheckSpace(zipPath, trace, dir);
            Directory.CreateDirectory(dir);
            ExitJanitor.DeleteOnExit(dir);
            var tracePath = Extract(zipPath, trace, dir);
            foreach (var name in TraceFolderLayout.AnalyzerCompanions)
                if (entries.FirstOrDefault(e => e.FullName.Replace('\\', '/') == folder + name) is { } companion) Extract(zipPath, companion, dir);
            foreach (var side in entries.Where(e => e.FullName.Replace('\\', '/').StartsWith(folder, StringComparison.Ordinal)
                && TraceFolderLayout.IsSideFile(e.FullName.Replace('\\', '/')[folder.Length..])))
                Extract(zipPath, side, dir);
            CheckNetTrace(tracePath);
            return WithCompanions(zipPath, tracePath, dir, extractedDir: dir);
        }
        catch
        {
            // Nothing extracted may outlive a failed open.
            if (Directory.Exists(dir)) Directory.Delete(dir, recursive: true);
            throw;
        }
    }

    private static ZipArchive OpenZip(string zipPath)
    {
        try
        {
            return ZipFile.OpenRead(zipPath);
        }
        catch (InvalidDataException ex)
        {
            throw new BadInputException($"{zipPath}: not a readable zip file ({ex.Message})", ex);
        }
    }

    /// <summary>Extracted flat, under its own file name: the folder layout inside the zip is not needed, only the names.</summary>
    private static string Extract(string zipPath, ZipArchiveEntry entry, string dir)
    {
        var path = Path.Combine(dir, Path.GetFileName(entry.FullName.Replace('\\', '/')));
        try
        {
            entry.ExtractToFile(path, overwrite: true);
            return path;
        }
        catch (Exception ex) when (ex is InvalidDataException or IOException or NotSupportedException)
        {
            throw new BadInputException($"{zipPath}: cannot extract '{entry.FullName}' ({ex.Message})", ex);
        }
    }

    /// <summary>A zip can claim any size: refuse one that would fill the temp folder's disk rather than half-extract it.</summary>
    private static void CheckSpace(string zipPath, ZipArchiveEntry trace, string dir)
    {
        long free;
        try { free = new DriveInfo(Path.GetDirectoryName(dir)!).AvailableFreeSpace; }
        catch (Exception ex) when (ex is IOException or ArgumentException or UnauthorizedAccessException) { return; }
        if (trace.Length > free - (64L << 20))
            throw new BadInputException($"{zipPath}: '{trace.FullName}' is {trace.Length / 1048576.0:N0} MB unpacked and {Path.GetDirectoryName(dir)} has {free / 1048576.0:N0} MB free: extract it elsewhere and pass the trace");
    }

    /// <summary>The folder part of an entry's name, with its trailing slash ("" at the root).</summary>
    private static string Folder(string entryName)
    {
        var slash = entryName.Replace('\\', '/').LastIndexOf('/');
        return slash < 0 ? "" : entryName[..(slash + 1)];
    }

    /// <summary>Absolute names, drive letters and any ".." segment: zip-slip, whatever the extractor would make of it.</summary>
    private static bool Escapes(string entryName)
    {
        var name = entryName.Replace('\\', '/');
        return name.StartsWith('/') || (name.Length > 1 && name[1] == ':') || name.Split('/').Any(part => part == "..");
    }

    private static string Names(IEnumerable<string?> names)
    {
        var list = names.ToList();
        return string.Join(", ", list.Take(5)) + (list.Count > 5 ? $", ... ({list.Count - 5} more)" : "");
    }

    private static string? Companion(string dir, string name)
    {
        var p = Path.Combine(dir, name);
        return File.Exists(p) ? p : null;
    }

    /// <returns>True for a .netperf file (.NET Core 2.x EventPipe), false for a .nettrace.</returns>
    private static bool CheckNetTrace(string path)
    {
        Span<byte> head = stackalloc byte[NetPerfFile.HeaderBytes];
        int read;
        using (var f = File.OpenRead(path)) read = f.ReadAtLeast(head, head.Length, throwOnEndOfStream: false);
        if (read == 0) throw new BadInputException($"{path}: empty file (the recording produced no data)");
        if (read >= NetTraceMagic.Length && head[..NetTraceMagic.Length].SequenceEqual(NetTraceMagic)) return false;
        if (NetPerfFile.Recognize(head[..read]))
        {
            NetPerfFile.CheckReadable(path);
            return true;
        }
        throw new BadInputException($"{path}: not a .nettrace file (expected the 'Nettrace' header); supported: .nettrace, .netperf (.NET Core 2.1), trace folders, .zip, .etl on Windows");
    }

    public void Dispose()
    {
        if (_extractedDir is not null && Directory.Exists(_extractedDir)) Directory.Delete(_extractedDir, recursive: true);
    }
}
