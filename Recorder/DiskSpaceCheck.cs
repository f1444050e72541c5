using System.Globalization;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Profiles;

namespace EtwSerializerProfiler.Recorder;

/// <summary>
/// Before recording: the free space where the trace folder goes against what the profile writes per second
/// (Profiles/profiles.json's traceMBPerSecond, measured). Refuses when a recording cannot even start, warns when
/// less than a minute of it fits (docs/recorder.md#the-disk-fills-up).
/// </summary>
public static class DiskSpaceCheck
{
    /// <summary>
    /// Held in the folder while recording and freed when a write fails: room for perf's last write and its
    /// conversion, the benchmark's results and the manifest.
    /// </summary>
    public const long ReserveBytes = SessionsReserveBytes + ManifestReserveBytes;
    public const long SessionsReserveBytes = 1536 << 10;
    public const long ManifestReserveBytes = 512 << 10;
    /// <summary>Below this nothing useful fits: the reserve plus about the first second of a default recording.</summary>
    public const long MinimumFreeBytes = 3 << 20;
    /// <summary>Warn when less than this much recording fits.</summary>
    public const double WarnBelowSeconds = 60;
    /// <summary>The kernel session's share on top of EventPipe's (docs/recorder.md: a 6 MB folder against 5 MB without it).</summary>
    public const double KernelSessionFactor = 1.2;

    /// <summary>
    /// While recording: below this much free space (the reserve apart) the trace is cut, before the disk is full.
    /// Twice what perf holds in flight on a tight disk (2 CPUs x PerfSession.TightDiskMmapPages x 4 KB).
    /// </summary>
    public const long LowWaterBytes = 1 << 20;
    /// <summary>Below this much free space perf records with small buffers (PerfSession.TightDiskMmapPages).</summary>
    public const long TightDiskBytes = 256L << 20;
    public static readonly TimeSpan PollInterval = TimeSpan.FromMilliseconds(250);

    /// <summary>Why the recording at <paramref name="tracePath"/> should stop now (its disk is nearly full), or null.</summary>
    public static string? NearlyFull(string tracePath) => FreeBytes(tracePath) is { } free && free < LowWaterBytes
        ? string.Create(CultureInfo.InvariantCulture, $"the disk is nearly full: {free / 1024} KB left (the recorder stops under {LowWaterBytes / 1024} KB, so that perf can finish its file)")
        : null;

    /// <summary>Free bytes on the file system that holds <paramref name="path"/> (or its nearest existing parent); null when unknown.</summary>
    public static long? FreeBytes(string path)
    {
        var dir = Path.GetFullPath(path);
        while (!Directory.Exists(dir) && Path.GetDirectoryName(dir) is { } parent) dir = parent;
        try { return new DriveInfo(OperatingSystem.IsWindows() ? Path.GetPathRoot(dir)! : dir).AvailableFreeSpace; }
        catch (Exception ex) when (ex is IOException or ArgumentException or UnauthorizedAccessException) { return null; }
    }

    /// <summary>The warning to print, or null; throws <see cref="DiskFullException"/> when the recording cannot start.</summary>
    public static string? Check(string path, TraceProfile profile, bool kernelSession) =>
        FreeBytes(path) is { } free ? Judge(free, Path.GetFullPath(path), profile, kernelSession) : null;

    public static string? Judge(long free, string path, TraceProfile profile, bool kernelSession)
    {
        var rate = profile.TraceMBPerSecond * (kernelSession ? KernelSessionFactor : 1);
        var writes = rate > 0 ? string.Create(CultureInfo.InvariantCulture, $"profile '{profile.Name}' writes about {rate:F1} MB/s") : $"profile '{profile.Name}'";
        if (free < MinimumFreeBytes)
            throw new DiskFullException(string.Create(CultureInfo.InvariantCulture,
                $"only {Mb(free)} MB free at {path}: a recording needs at least {Mb(MinimumFreeBytes)} MB to start ({writes}); free some space or choose another --out"));
        if (rate <= 0) return null;
        var seconds = (free - ReserveBytes) / (rate * 1048576);
        return seconds >= WarnBelowSeconds ? null : string.Create(CultureInfo.InvariantCulture,
            $"only {Mb(free)} MB free at {path}: {writes}, so about {seconds:F0} s of recording fits; if the disk fills, the recording stops there and keeps what it wrote");
    }

    private static string Mb(long bytes) => (bytes / 1048576.0).ToString("F1", CultureInfo.InvariantCulture);
}
