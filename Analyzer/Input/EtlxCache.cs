using System.Security.Cryptography;
using System.Text.Json;
using EtwSerializerProfiler.Common;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace EtwSerializerProfiler.Analyzer.Input;

/// <summary>
/// TraceEvent resolves a .nettrace's stacks only through its indexed form, ETLX, and converting costs seconds on a
/// large trace. So the .etlx is kept next to the trace (<c>trace.nettrace.etlx</c>) with a record of what it was made
/// from (<c>trace.nettrace.etlx.json</c>): the trace's and the .etlx's length and SHA-256, the converting code, and
/// what the conversion found (the trace ends abruptly, bytes after its end). A cache is used only when all of that
/// matches: a trace replaced by another of the same length and time, another trace's .etlx copied beside it, a damaged
/// .etlx are all converted again. Its verdict is replayed, so a second analysis warns as the first did. Without
/// --no-cache and where the trace's folder can be written; otherwise the .etlx is a temp file removed when the lease
/// ends (or, if esp is killed, by the exit janitor and the next run's sweep).
/// </summary>
internal static class EtlxCache
{
    public const string TruncatedWarning = "the trace ends abruptly (truncated or the process was killed): results cover the readable part";
    /// <summary>2: converted with KeepAllEvents (the rundown's method events stay in the .etlx for ManagedCodeMap).</summary>
    private const int RecordFormat = 2;
    /// <summary>The converting code: TraceEvent's version and this build (whose verdict the record holds).</summary>
    private static readonly string s_converter =
        $"TraceEvent {typeof(TraceLog).Assembly.GetName().Version}; analyzer {typeof(EtlxCache).Assembly.ManifestModule.ModuleVersionId:N}";

    public static string CachePath(string tracePath) => tracePath + ".etlx";

    public static string RecordPath(string tracePath) => tracePath + ".etlx.json";

    public static EtlxLease Open(string tracePath, bool keep, IProgress<string>? progress)
    {
        var etlx = CachePath(tracePath);
        if (keep && CanWriteBeside(etlx))
        {
            // Both files are read in full to compare them with the record (about 1 s of CPU per GB): side by side.
            var cached = File.Exists(etlx) ? Task.Run(() => Fingerprint.TryOf(etlx)) : null;
            var trace = Fingerprint.Of(tracePath);
            var current = cached?.GetAwaiter().GetResult();
            try
            {
                return TryReuse(tracePath, etlx, trace, current, progress) ?? Convert(tracePath, etlx, trace, progress);
            }
            catch (BadInputException ex) when (ex.InnerException is { } inner && IsWriteFailure(inner))
            {
                // A folder on a full disk (a recording cut by it, docs/recorder.md#the-disk-fills-up): the conversion
                // goes to the temp folder instead, as with --no-cache.
                progress?.Report($"no room for the .etlx cache beside the trace ({inner.Message}): converting into the temp folder");
            }
        }
        return Convert(tracePath, EspTempFiles.NewPath("-" + Path.GetFileName(etlx)), trace: null, progress);
    }

    /// <param name="current">The cache's fingerprint now; null when there is no cache (or it cannot be read).</param>
    private static EtlxLease? TryReuse(string tracePath, string etlx, Fingerprint trace, Fingerprint? current, IProgress<string>? progress)
    {
        if (current is null) return null;
        var record = ReadRecord(RecordPath(tracePath));
        var why = WhyNotUsable(record, current.Value, trace);
        if (why is null)
        {
            try
            {
                return new EtlxLease(new TraceLog(etlx), tempPath: null, record!.Truncated, record.Warnings);
            }
            catch (Exception ex) when (ReaderFault.IsFrom(ex, ReaderFault.TraceEvent) || ex is IOException or UnauthorizedAccessException)
            {
                why = $"cannot be opened ({ReaderFault.Describe(ex)})";
            }
        }
        progress?.Report($"the cache {etlx} {why}: converting again");
        return null;
    }

    private static string? WhyNotUsable(CacheRecord? record, Fingerprint current, Fingerprint trace)
    {
        if (record is null) return "has no readable record of the trace it was made from";
        if (record.Format != RecordFormat || record.Converter != s_converter) return "was made by another version of esp";
        if (record.TraceBytes != trace.Bytes || record.TraceSha256 != trace.Sha256) return "was made from another trace (or from this file before it changed)";
        if (current.Bytes != record.EtlxBytes || current.Sha256 != record.EtlxSha256) return "is damaged (it is not what was written)";
        return record.Warnings is null ? "has a damaged record" : null;
    }

    /// <param name="trace">The trace's fingerprint when the result is kept as the cache; null for a temp file.</param>
    private static EtlxLease Convert(string tracePath, string target, Fingerprint? trace, IProgress<string>? progress)
    {
        var keep = trace is not null;
        progress?.Report($"converting {tracePath} ({new FileInfo(tracePath).Length / 1048576.0:F1} MB) to {Path.GetFileName(target)}...");
        // Converted under a private name and renamed when complete: an esp killed mid-conversion, or two converting
        // the same trace at once, never leave a half-written file under the cache's name.
        var output = keep ? $"{target}.{Environment.ProcessId}-{Guid.NewGuid():N}.tmp" : target;
        if (keep)
        {
            RemoveAbandoned(target);
            FileCleanup.TryDelete(RecordPath(tracePath));
        }
        else
        {
            // TraceEvent writes OUTPUT.new first and renames it.
            ExitJanitor.DeleteOnExit(output, output + ".new");
        }
        TraceLog? log = null;
        try
        {
            var conversionLog = new StringWriter();
            try
            {
                FileReads.Count(tracePath);
                TraceLog.CreateFromEventPipeDataFile(tracePath, output, new TraceLogOptions { ContinueOnError = true, ConversionLog = conversionLog, KeepAllEvents = true });
            }
            catch (Exception ex) when (IsWriteFailure(ex))
            {
                throw new BadInputException(keep
                    ? $"{tracePath}: cannot write its conversion {output} ({ex.Message}); that is the analyzer's .etlx cache: free space there, or pass --no-cache"
                    : $"{tracePath}: cannot write its conversion {output} ({ex.Message}); free space in the temp folder (TMPDIR)", ex);
            }
            catch (Exception ex) when (ReaderFault.IsFrom(ex, ReaderFault.TraceEvent))
            {
                throw Unreadable(tracePath, ex);
            }
            var (truncated, warnings) = Verdict(tracePath, conversionLog.ToString());
            if (keep)
            {
                File.Move(output, target, overwrite: true);
                WriteRecord(tracePath, new CacheRecord(RecordFormat, s_converter, trace!.Value.Bytes, trace.Value.Sha256,
                    new FileInfo(target).Length, Fingerprint.Of(target).Sha256, truncated, warnings));
            }
            try
            {
                log = new TraceLog(target);
            }
            catch (Exception ex) when (ReaderFault.IsFrom(ex, ReaderFault.TraceEvent))
            {
                // TraceEvent wrote an .etlx it cannot read back: the trace was too damaged to convert.
                throw Unreadable(tracePath, ex);
            }
            return new EtlxLease(log, keep ? null : target, truncated, warnings);
        }
        catch
        {
            log?.Dispose();
            FileCleanup.TryDelete(output);
            if (keep)
            {
                FileCleanup.TryDelete(target);
                FileCleanup.TryDelete(RecordPath(tracePath));
            }
            throw;
        }
    }

    private static BadInputException Unreadable(string tracePath, Exception ex) =>
        new($"{tracePath}: cannot read trace ({ReaderFault.Describe(ex)}); the file is corrupt or truncated", ex);

    /// <summary>
    /// What is wrong with the trace, told once at conversion and kept in the record: TraceEvent's conversion log, and
    /// the file's own framing (it ends inside or between blocks without the end-of-stream tag, or goes on after it).
    /// </summary>
    private static (bool Truncated, List<string> Warnings) Verdict(string tracePath, string conversionLog)
    {
        var warnings = new List<string>();
        var blocks = NetTraceBlocks.Scan(tracePath);
        var truncated = blocks.Truncated
            || conversionLog.Contains("ERROR", StringComparison.OrdinalIgnoreCase)
            || conversionLog.Contains("truncat", StringComparison.OrdinalIgnoreCase);
        if (truncated) warnings.Add(TruncatedWarning);
        if (blocks.TrailingBytes > 0)
            warnings.Add($"the file goes on for {blocks.TrailingBytes:N0} bytes after the trace's end-of-stream tag (two traces joined, or a bad copy?): only the first trace is analyzed");
        return (truncated, warnings);
    }

    /// <summary>A failure to write the .etlx (disk full, read-only) is the cache's problem, not the trace's.</summary>
    /// <remarks>Frames read through <see cref="System.Diagnostics.DiagnosticMethodInfo"/>, which the native esp answers too (no reflection metadata needed).</remarks>
    internal static bool IsWriteFailure(Exception ex) =>
        IsDiskFull(ex) ||
        ex is IOException or UnauthorizedAccessException
        && new System.Diagnostics.StackTrace(ex).GetFrames().Any(f => System.Diagnostics.DiagnosticMethodInfo.Create(f) is { DeclaringTypeName: { } type } m
            && NamespaceOf(type) is "System.IO" or "System.IO.Strategies"
            && (m.Name.StartsWith("Write", StringComparison.Ordinal) || m.Name.StartsWith("Flush", StringComparison.Ordinal) || m.Name.StartsWith("SetLength", StringComparison.Ordinal)));

    /// <summary>
    /// No space (ENOSPC 28, or Windows' ERROR_DISK_FULL 112 / ERROR_HANDLE_DISK_FULL 39) or quota (EDQUOT 122) left,
    /// wherever it was raised: CI saw it from opening TraceEvent's .tmp.new on a full disk, with no Write frame on the stack.
    /// </summary>
    private static bool IsDiskFull(Exception ex) =>
        ex is IOException io && (io.HResult is 28 or 122 || (io.HResult & 0xFFFF) is 0x70 or 0x27
            || io.Message.Contains("No space left on device", StringComparison.Ordinal) || io.Message.Contains("quota exceeded", StringComparison.OrdinalIgnoreCase));

    /// <summary>"System.IO.Strategies.BufferedFileStreamStrategy" (or a nested "...+Inner") is in "System.IO.Strategies".</summary>
    private static string NamespaceOf(string typeName)
    {
        var outer = typeName.Split('+')[0];
        var dot = outer.LastIndexOf('.');
        return dot < 0 ? "" : outer[..dot];
    }

    private static bool CanWriteBeside(string etlx)
    {
        // Something else under the cache's names (a folder) is left alone; the conversion goes to a temp file.
        if (Directory.Exists(etlx) || Directory.Exists(etlx + ".json")) return false;
        try
        {
            using (new FileStream($"{etlx}.{Environment.ProcessId}.probe", FileMode.Create, FileAccess.Write, FileShare.None, 1, FileOptions.DeleteOnClose)) { }
            return true;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { return false; }
    }

    /// <summary>
    /// Conversions of this trace that an esp killed mid-way left behind: its .tmp (and TraceEvent's .tmp.new) under a
    /// process id that has ended.
    /// </summary>
    private static void RemoveAbandoned(string target)
    {
        var dir = Path.GetDirectoryName(Path.GetFullPath(target))!;
        var prefix = Path.GetFileName(target) + ".";
        foreach (var tmp in Directory.EnumerateFiles(dir, prefix + "*.tmp*"))
        {
            // ...etlx.PID-GUID.tmp, ...etlx.PID-GUID.tmp.new, ...etlx.json.PID-GUID.tmp
            var owner = System.Text.RegularExpressions.Regex.Match(Path.GetFileName(tmp), @"\.([0-9]{1,9})-[0-9a-f]{32}\.tmp", System.Text.RegularExpressions.RegexOptions.CultureInvariant);
            if (owner.Success && int.TryParse(owner.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture, out var pid)
                && !EspTempFiles.OwnerAlive(pid, File.GetLastWriteTimeUtc(tmp))) FileCleanup.TryDelete(tmp);
        }
    }

    private static CacheRecord? ReadRecord(string path)
    {
        try
        {
            return File.Exists(path) ? JsonSerializer.Deserialize(File.ReadAllBytes(path), CacheRecordJsonContext.Default.CacheRecord) : null;
        }
        catch (Exception ex) when (ex is JsonException or IOException or UnauthorizedAccessException or NotSupportedException)
        {
            return null; // a damaged record is no record: the trace is converted again
        }
    }

    private static void WriteRecord(string tracePath, CacheRecord record)
    {
        var path = RecordPath(tracePath);
        var tmp = $"{path}.{Environment.ProcessId}-{Guid.NewGuid():N}.tmp";
        File.WriteAllBytes(tmp, JsonSerializer.SerializeToUtf8Bytes(record, CacheRecordJsonContext.Default.CacheRecord));
        File.Move(tmp, path, overwrite: true);
    }

    /// <summary>What the cache was made from and what its conversion found.</summary>
    internal sealed record CacheRecord(int Format, string Converter, long TraceBytes, string TraceSha256, long EtlxBytes, string EtlxSha256, bool Truncated, List<string> Warnings);

    private readonly record struct Fingerprint(long Bytes, string Sha256)
    {
        public static Fingerprint Of(string path)
        {
            // Shared for writing too: the trace of a recording still in progress can be analyzed.
            FileReads.Count(path);
            using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1 << 20, FileOptions.SequentialScan);
            return new Fingerprint(stream.Length, System.Convert.ToHexString(SHA256.HashData(stream)));
        }

        public static Fingerprint? TryOf(string path)
        {
            try { return Of(path); }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { return null; }
        }
    }
}

/// <summary>An open .etlx with what its conversion found; disposing it closes the log and removes a temp .etlx.</summary>
internal sealed class EtlxLease(TraceLog log, string? tempPath, bool truncated, IReadOnlyList<string> warnings) : IDisposable
{
    /// <summary>A log that needs no cache (an .etl TraceEvent converted and keeps itself).</summary>
    public EtlxLease(TraceLog log) : this(log, null, false, []) { }

    public TraceLog Log { get; } = log;
    public bool Truncated { get; } = truncated;
    public IReadOnlyList<string> Warnings { get; } = warnings;

    public void Dispose()
    {
        Log.Dispose();
        if (tempPath is null) return;
        FileCleanup.TryDelete(tempPath);
    }
}

[System.Text.Json.Serialization.JsonSourceGenerationOptions(PropertyNamingPolicy = System.Text.Json.Serialization.JsonKnownNamingPolicy.CamelCase, WriteIndented = true)]
[System.Text.Json.Serialization.JsonSerializable(typeof(EtlxCache.CacheRecord))]
internal sealed partial class CacheRecordJsonContext : System.Text.Json.Serialization.JsonSerializerContext;
