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
    /// <summary>The Linux kernel session's `perf script` text (Recorder's TraceFolder.KernelScriptFileName).</summary>
    public string? KernelScriptPath { get; init; }
    /// <summary>A .NET Core 2.x EventPipe file (.netperf, format before "Nettrace"), read by the same TraceEvent path.</summary>
    public bool NetPerf { get; init; }

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
        var nettrace = Path.Combine(dir, "trace.nettrace");
        var etl = Path.Combine(dir, "trace.etl");
        string trace;
        if (File.Exists(nettrace)) trace = nettrace;
        else if (File.Exists(etl)) return Open(etl);
        else
        {
            var any = Directory.EnumerateFiles(dir, "*.nettrace").Order(StringComparer.Ordinal).FirstOrDefault()
                ?? throw new BadInputException($"{dir}: no trace.nettrace, trace.etl or *.nettrace in this folder");
            trace = any;
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
        ResultsPath = Companion(dir, "results.json"),
        StackTagsPath = Companion(dir, "Serializers.stacktags"),
        ManifestPath = Companion(dir, "manifest.json"),
        KernelScriptPath = Companion(dir, "kernel.perf-script.txt.gz"),
        _extractedDir = extractedDir,
    };

    private static TraceInput FromZip(string zipPath)
    {
        var dir = Path.Combine(Path.GetTempPath(), "esp-zip-" + Guid.NewGuid().ToString("N"));
        try
        {
            ZipFile.ExtractToDirectory(zipPath, dir);
            var trace = Directory.EnumerateFiles(dir, "*.nettrace", SearchOption.AllDirectories).Order(StringComparer.Ordinal).FirstOrDefault()
                ?? throw new BadInputException($"{zipPath}: the zip holds no .nettrace file");
            CheckNetTrace(trace);
            return WithCompanions(zipPath, trace, Path.GetDirectoryName(trace)!, extractedDir: dir);
        }
        catch (Exception ex)
        {
            // Nothing extracted may outlive a failed open.
            if (Directory.Exists(dir)) Directory.Delete(dir, recursive: true);
            if (ex is InvalidDataException) throw new BadInputException($"{zipPath}: not a readable zip file ({ex.Message})", ex);
            throw;
        }
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
