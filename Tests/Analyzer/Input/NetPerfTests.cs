using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.EventBytes;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace EtwSerializerProfiler.Tests.Analyzer.Input;

/// <summary>
/// .NET Core 2.x EventPipe files (.netperf), on PerfView's own small test trace (Tests/Fixtures/NetPerf/README.md):
/// read through TraceEvent like a .nettrace; a version TraceEvent does not read is one line that says why.
/// </summary>
[EndToEnd]
public sealed class NetPerfTests : IDisposable
{
    private const string FixtureName = "eventpipe-dotnetcore2.1-linux-x64-tracelogging.netperf";
    /// <summary>Byte offset of the first object's format version: serializer name (4 + 20 bytes), then three tags.</summary>
    private const int VersionOffset = 27;

    /// <summary>PerfView's expected output for the file (its .baseline.txt): events per name.</summary>
    private static readonly Dictionary<string, long> s_perfViewBaseline = new(StringComparer.Ordinal)
    {
        ["SendEmptyEvent"] = 1, ["TestEmptyEvent"] = 2, ["TestEvent"] = 1, ["TestEvent1"] = 3,
        ["TestEvent2"] = 3, ["TestEventMethod"] = 1, ["TestNestedStructs"] = 1,
    };

    private readonly string _dir = Repo.NewTempDir("netperf");
    private readonly string _trace;

    private static string Esp => Path.Combine(Repo.BinDir, "esp.dll");

    public NetPerfTests()
    {
        // A copy: analysis keeps its .etlx next to the trace, and the fixture stays untouched in the repository.
        _trace = Path.Combine(_dir, FixtureName);
        File.Copy(Path.Combine(Repo.Root, "Tests", "Fixtures", "NetPerf", FixtureName), _trace);
    }

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    private string WithVersion(int version)
    {
        var bytes = File.ReadAllBytes(_trace);
        Assert.Equal(3, bytes[VersionOffset]);
        bytes[VersionOffset] = (byte)version;
        var path = Path.Combine(_dir, $"v{version}.netperf");
        File.WriteAllBytes(path, bytes);
        return path;
    }

    [Fact]
    public void A_netperf_file_is_recognized_and_analyzed_through_TraceEvent()
    {
        using var input = TraceInput.Open(_trace);
        Assert.True(input.NetPerf);
        Assert.Equal(TraceFormat.NetTrace, input.Format);
        var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
        Assert.Equal("netperf (EventPipe, .NET Core 2.1)", analysis.Trace.Format);
        Assert.Equal(s_perfViewBaseline.Values.Sum(), analysis.Trace.Events);
        Assert.Empty(analysis.Runs); // TraceLogging test events: no benchmark runs in it
    }

    [Fact]
    public void Stats_count_every_event_as_PerfView_does_and_account_for_every_byte()
    {
        var stats = TraceStatistics.Compute(_trace);
        var byName = stats.Events.GroupBy(e => e.Event).ToDictionary(g => g.Key, g => g.Sum(e => e.Count), StringComparer.Ordinal);
        Assert.Equal(s_perfViewBaseline.OrderBy(kv => kv.Key), byName.OrderBy(kv => kv.Key));
        Assert.All(stats.Events, e => Assert.Equal("MySource", e.Provider));

        var blocks = stats.Blocks;
        Assert.True(blocks.NetPerf);
        Assert.True(blocks.Complete);
        Assert.Null(blocks.Unsupported);
        Assert.Equal(["EventBlock", "Trace"], blocks.Blocks.Keys.Order(StringComparer.Ordinal));
        Assert.Equal(blocks.FileBytes, blocks.HeaderBytes + blocks.Blocks.Values.Sum(b => b.Bytes) + 1); // + end tag
        Assert.Equal(1.0, blocks.ExpectedSamplingMs);
    }

    [Fact]
    public void Esp_analyze_and_stats_read_it()
    {
        var analyze = ProcessRunner.Dotnet(Esp, "analyze", _trace);
        // 1: read, but no benchmark runs in it (docs/analyzer.md, "Bad input"); 3 would be a refusal.
        // No benchmark runs in it: analyzed whole, which is a result (exit 0).
        Assert.True(analyze.ExitCode == ExitCodes.Ok, $"exit {analyze.ExitCode}: {analyze.StdErr}");
        Assert.Contains($"Trace: {_trace} (netperf (EventPipe, .NET Core 2.1), read through TraceLog (.etlx), 0.0 MB, 12 events", analyze.StdOut, StringComparison.Ordinal);

        var stats = ProcessRunner.Dotnet(Esp, "stats", _trace);
        Assert.True(stats.ExitCode == ExitCodes.Ok, stats.StdErr);
        Assert.Contains("A .netperf file (.NET Core 2.1", stats.StdOut, StringComparison.Ordinal);
        Assert.Contains("TestNestedStructs", stats.StdOut, StringComparison.Ordinal);
    }

    [Fact]
    public void A_version_TraceEvent_does_not_read_is_one_line_that_says_why()
    {
        var v2 = WithVersion(2);
        var ex = Assert.Throws<BadInputException>(() => TraceInput.Open(v2));
        Assert.StartsWith($"{v2}: a .netperf file of EventPipe format version 2 (.NET Core 2.0); TraceEvent", ex.Message, StringComparison.Ordinal);
        Assert.Contains("reads versions 3 to ", ex.Message, StringComparison.Ordinal);

        foreach (var verb in new[] { "analyze", "stats" })
        {
            var r = ProcessRunner.Dotnet(Esp, verb, v2);
            Assert.Equal(ExitCodes.BadInput, r.ExitCode);
            Assert.Equal($"esp {verb}: {ex.Message}", r.StdErr.Trim());
        }
    }

    [Fact]
    public void An_etlx_is_not_taken_for_a_netperf()
    {
        // Both are FastSerialization streams; only the first object's type tells them apart.
        var etlx = Path.Combine(_dir, "converted.etlx");
        TraceLog.CreateFromEventPipeDataFile(_trace, etlx);
        var ex = Assert.Throws<BadInputException>(() => TraceInput.Open(etlx));
        Assert.Contains("not a .nettrace file", ex.Message, StringComparison.Ordinal);
    }
}
