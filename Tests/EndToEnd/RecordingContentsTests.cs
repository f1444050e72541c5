using System.Text.Json;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Analyzer.EventBytes;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>What the recorder leaves behind, and the analyzer's output formats, on the shared real recording.</summary>
[EndToEnd]
[Collection(RecordedBenchmarkCollection.Name)]
public sealed class RecordingContentsTests(RecordedBenchmark recorded)
{
    [Fact]
    public void The_trace_folder_holds_trace_results_manifest_and_stack_tags()
    {
        var folder = recorded.Folder;
        Assert.True(new FileInfo(folder.Trace).Length > 100_000);
        Assert.True(File.Exists(folder.ResultsJson));
        Assert.True(File.Exists(folder.ResultsCsv));
        Assert.True(File.Exists(folder.StackTags));
        Assert.False(File.Exists(Path.Combine(folder.Path, ".recording")));
        var manifest = TraceManifest.Load(folder.Manifest);
        Assert.Equal("default", manifest.Profile);
        Assert.Equal("eventpipe", manifest.Backend);
        Assert.Equal(RecordingStatus.Complete, manifest.Status);
        Assert.False(manifest.Incomplete);
        Assert.Equal(0, manifest.ChildExitCode);
        Assert.Equal(1.0, manifest.CpuSamplingMs);
        Assert.Contains(manifest.Providers, p => p.Name == RunEvents.ProviderName);
        var clr = Assert.Single(manifest.Providers, p => p.Name == "Microsoft-Windows-DotNETRuntime");
        Assert.Equal("0x4800000C019", clr.Keywords); // GC|Loader|Jit|TypeDiagnostic|Contention|Exception|WaitHandle
        Assert.Equal("Verbose", clr.Level);
        Assert.Contains("SerializerBenchmark.dll", manifest.CommandLine, StringComparison.Ordinal);
    }

    [Fact]
    public void The_trace_holds_run_events_marker_waits_and_gc_events_for_every_run()
    {
        var stats = TraceStatistics.Compute(recorded.Folder.Trace);
        long Count(string provider, string eventName) => stats.Events.Where(e => e.Provider == provider && e.Event.StartsWith(eventName, StringComparison.Ordinal)).Sum(e => e.Count);
        var runs = recorded.InProcess.Runs.Count;
        // EventSource names Start/Stop-suffixed events "Run/Start" and "Run/Stop" (task/opcode) on the wire.
        Assert.Equal(runs, Count(RunEvents.ProviderName, "Run/Start"));
        Assert.Equal(runs, Count(RunEvents.ProviderName, "Run/Stop"));
        // Each run: one marker wait plus the handshake waits of the main and marker threads.
        Assert.True(Count("Microsoft-Windows-DotNETRuntime", "WaitHandleWait/Start") >= runs);
        Assert.True(Count("Microsoft-Windows-DotNETRuntime", "GC/Start") >= recorded.InProcess.Runs.Sum(r => r.GcCount.Total));
        Assert.True(Count("Microsoft-Windows-DotNETRuntime", "GC/AllocationTick") > 0);
        Assert.True(Count("Microsoft-DotNETCore-SampleProfiler", "Thread/Sample") > 0);
        Assert.True(Count("Microsoft-Windows-DotNETRuntimeRundown", "Method/DCStopVerbose") > 0, "no rundown: method names would not resolve");
    }

    [Fact]
    public void Stats_accounts_for_the_whole_file_and_reports_the_stack_share()
    {
        var stats = TraceStatistics.Compute(recorded.Folder.Trace);
        var blocks = stats.Blocks;
        Assert.Null(blocks.Unsupported);
        Assert.False(blocks.Truncated);
        Assert.True(blocks.Blocks.ContainsKey("StackBlock"));
        Assert.True(blocks.Blocks["EventBlock"].Bytes > blocks.Blocks["StackBlock"].Bytes);
        // Header, blocks (with their framing) and the end tag add up to the file, to the byte: nothing is skipped.
        Assert.True(blocks.Complete);
        var accounted = blocks.Blocks.Values.Sum(b => b.Bytes);
        Assert.Equal(blocks.FileBytes, blocks.HeaderBytes + accounted + 1);
        Assert.Equal(1.0, blocks.ExpectedSamplingMs);
        var text = string.Concat(stats.Tables().Select(PlainText.Table));
        Assert.Contains("Stacks take", text, StringComparison.Ordinal);
    }

    [Fact]
    public void Json_output_follows_the_documented_schema()
    {
        var json = JsonDocument.Parse(AnalysisReport.Render(recorded.Analysis, TableFormat.Json)).RootElement;
        Assert.Equal(AnalysisReport.SchemaVersion, json.GetProperty("schemaVersion").GetInt32());
        Assert.True(json.GetProperty("trace").GetProperty("hasRundown").GetBoolean());
        var runs = json.GetProperty("runs").EnumerateArray().ToList();
        Assert.Equal(recorded.InProcess.Runs.Count, runs.Count);
        foreach (var run in runs)
        {
            foreach (var field in new[] { "serializer", "operation", "objects", "run", "durationMs", "cpuMs", "gcPauseMs", "allocatedBytes", "tags", "exceptions", "contentionMs", "jitMs" })
                Assert.True(run.TryGetProperty(field, out _), $"run lacks '{field}'");
            foreach (var gen in new[] { "gen0", "gen1", "gen2" })
            {
                Assert.True(run.GetProperty("gcCount").TryGetProperty(gen, out _));
                Assert.True(run.GetProperty("inProcess").GetProperty("gcCount").TryGetProperty(gen, out _));
            }
            Assert.True(run.GetProperty("inProcess").GetProperty("durationMs").GetDouble() > 0);
        }
        var serializers = json.GetProperty("serializers").EnumerateArray().ToList();
        Assert.Equal(RecordedBenchmark.Serializers.Length * 2, serializers.Count);
        Assert.All(serializers, s => Assert.Equal(RecordedBenchmark.Runs - 1, s.GetProperty("runs").GetInt32()));
    }

    [Fact]
    public void Text_csv_and_markdown_outputs_name_every_serializer()
    {
        var text = AnalysisReport.Render(recorded.Analysis, TableFormat.Text);
        var markdown = AnalysisReport.Render(recorded.Analysis, TableFormat.Markdown);
        var csv = AnalysisReport.Render(recorded.Analysis, TableFormat.Csv);
        foreach (var s in RecordedBenchmark.Serializers)
        {
            Assert.Contains(s, text, StringComparison.Ordinal);
            Assert.Contains("| " + s + " |", markdown, StringComparison.Ordinal);
            Assert.Contains(s + ",", csv, StringComparison.Ordinal);
        }
        // The CPU line names the source the columns came from: the kernel session where it was recorded.
        Assert.Contains("CPU: kernel session (perf): on-CPU time of the worker from its context switches", text, StringComparison.Ordinal);
        Assert.Contains("CPU = on-CPU time of the worker, kernel samples", text, StringComparison.Ordinal);
        Assert.Equal(recorded.InProcess.Runs.Count + 1, csv.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length);
    }
}
