using System.Text.Json;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Robustness;

/// <summary>
/// The .etlx cache next to a trace: used only when it is this trace's, and it keeps what the first analysis found. A
/// clean EventPipe trace is read in one raw pass without it; a cut one, or any with --etlx, is converted.
/// </summary>
[EndToEnd]
[Collection(DamagedInputCollection.Name)]
public sealed class EtlxCacheTests(DamagedInputSource source)
{
    private static readonly TimeSpan Bound = TimeSpan.FromMinutes(2);

    [Fact]
    public void A_second_analysis_of_a_cut_trace_still_says_it_is_cut()
    {
        var dir = source.NewWorkDir("cache-cut");
        var trace = Path.Combine(dir, "trace.nettrace");
        var bytes = File.ReadAllBytes(source.Folder.Trace);
        File.WriteAllBytes(trace, bytes[..(bytes.Length / 2)]);

        var first = InProcessEsp.Run(Bound, "analyze", trace, "--format", "json");
        var second = InProcessEsp.Run(Bound, "analyze", trace, "--format", "json");
        Assert.Contains("converting", first.StdErr, StringComparison.Ordinal);
        Assert.DoesNotContain("converting", second.StdErr, StringComparison.Ordinal); // the cache was used
        foreach (var run in new[] { first, second })
        {
            var doc = JsonDocument.Parse(run.StdOut).RootElement;
            Assert.True(doc.GetProperty("trace").GetProperty("truncated").GetBoolean(), $"truncated: false in {run.CommandLine}");
            Assert.Contains(doc.GetProperty("warnings").EnumerateArray(), w => w.GetString() == EtlxCache.TruncatedWarning);
        }
        Directory.Delete(dir, recursive: true);
    }

    [Fact]
    public void Another_traces_cache_beside_a_trace_is_not_used_however_new_it_looks()
    {
        var dir = source.NewWorkDir("cache-foreign");
        var other = Path.Combine(dir, "other.nettrace");
        var bytes = File.ReadAllBytes(source.Folder.Trace);
        File.WriteAllBytes(other, bytes[..(bytes.Length / 2)]);
        EtlxCache.Open(other, keep: true, progress: null).Dispose();
        var trace = Path.Combine(dir, "trace.nettrace");
        File.Copy(source.Folder.Trace, trace);
        // The other trace's cache, record and all, under this trace's names, and newer than it.
        File.Move(EtlxCache.CachePath(other), EtlxCache.CachePath(trace));
        File.Move(EtlxCache.RecordPath(other), EtlxCache.RecordPath(trace));
        File.SetLastWriteTimeUtc(EtlxCache.CachePath(trace), DateTime.UtcNow.AddHours(1));

        var run = InProcessEsp.Run(Bound, "analyze", trace, "--format", "json", "--etlx");
        Assert.Equal(0, run.ExitCode);
        Assert.Contains($"the cache {EtlxCache.CachePath(trace)} was made from another trace", run.StdErr, StringComparison.Ordinal);
        Assert.Equal(Runs(source.Control), Runs(run));
        Directory.Delete(dir, recursive: true);
    }

    [Fact]
    public void A_damaged_cache_is_named_and_converted_again()
    {
        var dir = source.NewWorkDir("cache-damaged");
        var trace = Path.Combine(dir, "trace.nettrace");
        File.Copy(source.Folder.Trace, trace);
        EtlxCache.Open(trace, keep: true, progress: null).Dispose();
        var cache = EtlxCache.CachePath(trace);
        var etlx = File.ReadAllBytes(cache);
        etlx[etlx.Length / 2] ^= 0x5a;
        File.WriteAllBytes(cache, etlx);

        var run = InProcessEsp.Run(Bound, "analyze", trace, "--format", "json", "--etlx");
        Assert.Equal(0, run.ExitCode);
        Assert.Contains($"the cache {cache} is damaged", run.StdErr, StringComparison.Ordinal);
        Assert.Equal(Runs(source.Control), Runs(run));
        Directory.Delete(dir, recursive: true);
    }

    [Fact]
    public void No_cache_and_zips_leave_nothing_in_the_temp_folder()
    {
        var dir = source.NewWorkDir("cache-none");
        var zip = Path.Combine(dir, "trace.zip");
        using (var archive = System.IO.Compression.ZipFile.Open(zip, System.IO.Compression.ZipArchiveMode.Create))
            System.IO.Compression.ZipFileExtensions.CreateEntryFromFile(archive, source.Folder.Trace, "rec/trace.nettrace");
        var before = Mine();
        foreach (var args in new[] { new[] { source.Folder.Path, "--no-cache", "--etlx" }, [zip], [zip, "--etlx"], [zip, "--no-cache", "--etlx"], [Path.Combine(dir, "missing.zip")] })
        {
            var run = InProcessEsp.Run(Bound, "analyze", args);
            Assert.True(run.ExitCode is ExitCodes.Ok or ExitCodes.BadInput, run.StdErr);
        }
        Assert.Equal(before, Mine());
        Assert.False(File.Exists(EtlxCache.CachePath(Path.Combine(dir, "trace.nettrace"))));
        Directory.Delete(dir, recursive: true);
    }

    [Fact]
    public void Conversions_an_esp_killed_mid_way_left_next_to_a_trace_are_removed_by_the_next_one()
    {
        var dir = source.NewWorkDir("cache-abandoned");
        var trace = Path.Combine(dir, "trace.nettrace");
        File.Copy(source.Folder.Trace, trace);
        using var ended = System.Diagnostics.Process.Start("/bin/true")!;
        ended.WaitForExit();
        var cache = EtlxCache.CachePath(trace);
        string[] abandoned = [$"{cache}.{ended.Id}-{Guid.NewGuid():N}.tmp", $"{cache}.{ended.Id}-{Guid.NewGuid():N}.tmp.new", $"{cache}.json.{ended.Id}-{Guid.NewGuid():N}.tmp"];
        var someoneElses = $"{cache}.{Environment.ProcessId}-{Guid.NewGuid():N}.tmp"; // a live esp's conversion in progress
        foreach (var f in abandoned.Append(someoneElses)) File.WriteAllText(f, "half written");

        Assert.Equal(0, InProcessEsp.Run(Bound, "analyze", trace, "--etlx").ExitCode);
        Assert.All(abandoned, f => Assert.False(File.Exists(f), f));
        Assert.True(File.Exists(someoneElses));
        Directory.Delete(dir, recursive: true);
    }

    /// <summary>This test process's temp entries (its own conversions and extracted zips).</summary>
    private static List<string> Mine() =>
        [.. Directory.EnumerateFileSystemEntries(Path.GetTempPath(), $"esp-{Environment.ProcessId}-*").Where(e => !e.EndsWith(".sock", StringComparison.Ordinal)).Order(StringComparer.Ordinal)];

    private static int Runs(VerbOutcome o) => JsonDocument.Parse(o.StdOut).RootElement.GetProperty("runs").GetArrayLength();
}
