using System.Text.Json;
using EtwSerializerProfiler.Analyzer.Export;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Tests.EndToEnd;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>
/// Each export of the shared recording opened in its own viewer: the speedscope files in speedscope (headless
/// Chromium), the Firefox Profiler profile in the profiler's own loading, upgrading and call tree code (profiler-cli,
/// under node). A run's marker, selected, must give that run's call tree and CPU.
/// </summary>
[EndToEnd]
[Collection(RecordedBenchmarkCollection.Name)]
public sealed class ViewerTests(RecordedBenchmark recorded, ITestOutputHelper output)
{
    /// <summary>Left Heavy: the heaviest path is drawn leftmost; a frame of at least this share is wide enough to be labelled.</summary>
    private const double LabelledShare = 0.10;

    [Fact]
    public void Speedscope_draws_the_heaviest_frames_of_each_case_in_its_flame_graph()
    {
        var report = GeneratedReport.Of(recorded);
        // The two cases with the most samples, one launch each (about 3 s).
        var files = Directory.GetFiles(report.SpeedscopeDir, "*.speedscope.json").OrderByDescending(f => new FileInfo(f).Length).Take(2).ToList();
        Assert.NotEmpty(files);
        foreach (var file in files)
        {
            var heaviest = HeaviestPath(file);
            var drawn = Chromium.SpeedscopeLabels(file);
            output.WriteLine($"{Path.GetFileName(file)}: {heaviest.Count} frames of at least {LabelledShare:P0} on the heaviest path; speedscope drew {drawn.Count} labels");
            Assert.True(heaviest.Count >= 3, $"{file}: only {heaviest.Count} frames hold {LabelledShare:P0}");
            foreach (var frame in heaviest)
                Assert.True(drawn.Any(label => Shows(label, frame)), $"{Path.GetFileName(file)}: speedscope drew no label for {frame}; it drew: {string.Join(" | ", drawn.Take(40))}");
            // Past the harness: the benchmark's adapter of this case's serializer is on the flame graph.
            Assert.Contains(heaviest, f => f.Contains(".Benchmark.Serializers.", StringComparison.Ordinal));
        }
    }

    [Fact]
    public void The_Firefox_profile_loads_in_the_profilers_own_code_and_each_cases_run_marker_selects_that_run()
    {
        var report = GeneratedReport.Of(recorded);
        var analysis = recorded.Analysis;
        using var profiler = new Viewers.Session(report.FirefoxPath);
        var threads = profiler.Json("thread", "list").GetProperty("threads").EnumerateArray().ToList();
        // A track per thread of the process, named as the trace names it.
        foreach (var t in analysis.Threads)
            Assert.Contains(threads, x => x.GetProperty("tid").GetInt32() == t.ThreadId && x.GetProperty("name").GetString() == (t.Name ?? $"Thread {t.ThreadId}"));
        var period = analysis.Trace.Kernel!.SamplePeriodMs;
        CheckRuns(profiler, analysis, threads, period, perCase: 1);

        // GC pauses carry their generation and reason; the runs' lock waits and off-CPU time are there.
        var worker = analysis.Runs.First(r => r.IsMeasured).WorkerThreadId;
        Select(profiler, threads, worker);
        var gc = profiler.Json("thread", "markers", "--search", "GC").GetProperty("byType").EnumerateArray().Where(t => t.GetProperty("markerName").GetString() == "GC").ToList();
        Assert.True(gc.Count == 1, "no GC marker on the worker");
        var gcMarker = profiler.Text("marker", "info", gc[0].GetProperty("topMarkers")[0].GetProperty("handle").GetString()!);
        Assert.Contains("Generation:", gcMarker, StringComparison.Ordinal);
        Assert.Contains("Reason:", gcMarker, StringComparison.Ordinal);
        Assert.True(profiler.Json("thread", "markers", "--search", "Off-CPU").GetProperty("filteredMarkerCount").GetInt32() > 0, "no off-CPU marker on the worker");
    }

    [Fact]
    public void With_EventPipe_alone_the_Firefox_profile_has_its_safe_point_samples_and_says_so()
    {
        var analysis = recorded.EventPipeAnalysis;
        var file = Path.Combine(Repo.NewTempDir("firefox-eventpipe"), "eventpipe.json.gz");
        new FirefoxExporter().Export(AnalysisReport.Document(analysis), TextWriter.Null, file, new Progress<string>());
        var meta = FirefoxProfileFile.Read(file).GetProperty("meta");
        Assert.Equal(FirefoxExporter.ProcessedProfileVersion, meta.GetProperty("preprocessedProfileVersion").GetInt32());
        var samples = meta.GetProperty("extra")[0].GetProperty("entries").EnumerateArray().Single(e => e.GetProperty("label").GetString() == "Samples");
        Assert.StartsWith("safe-point samples", samples.GetProperty("value").GetString(), StringComparison.Ordinal);

        using var profiler = new Viewers.Session(file);
        var threads = profiler.Json("thread", "list").GetProperty("threads").EnumerateArray().ToList();
        // EventPipe's samples are weighed by the gap to the thread's previous one: a run's edge sample can carry up to its cap.
        CheckRuns(profiler, analysis, threads, analysis.Trace.ObservedSampleIntervalMs ?? 1, perCase: 1, cases: 2);
    }

    /// <summary>
    /// For the first measured run(s) of each case: its marker on the worker's track, zoomed to as the profiler zooms to a
    /// selected marker, gives a call tree whose total is the run's CPU (within one sample interval) and whose heaviest
    /// frames include the benchmark's adapter of that serializer.
    /// </summary>
    private void CheckRuns(Viewers.Session profiler, TraceAnalysis analysis, List<JsonElement> threads, double intervalMs, int perCase, int cases = int.MaxValue)
    {
        var runs = analysis.Runs.Where(r => r.IsMeasured && r.CpuKnown).GroupBy(r => (r.Key.Serializer, r.Key.Operation, r.Key.Objects)).Take(cases).SelectMany(g => g.Take(perCase));
        foreach (var onThread in runs.GroupBy(r => r.WorkerThreadId))
        {
            // One listing per thread: its run markers and their handles, which the zooms below use.
            Select(profiler, threads, onThread.Key);
            var markers = profiler.Json("thread", "markers", "--search", "N=", "--limit", "1000").GetProperty("byType").EnumerateArray()
                .SelectMany(t => t.GetProperty("topMarkers").EnumerateArray()).ToList();
            foreach (var run in onThread)
            {
                var name = $"{run.Key.Serializer} {run.Key.Operation} N={run.Key.Objects:N0}";
                var marker = markers.Single(m => m.GetProperty("label").GetString()!.StartsWith($"{name} run {run.Key.Run} ", StringComparison.Ordinal));
                Assert.Equal(run.StartMs, marker.GetProperty("start").GetDouble(), 3);
                Assert.Equal(run.DurationMs, marker.GetProperty("duration").GetDouble(), 3);
                profiler.Text("zoom", "push", marker.GetProperty("handle").GetString()!);
                var tree = profiler.Json("thread", "samples");
                profiler.Text("zoom", "pop");
                var total = tree.GetProperty("categoryBreakdown").GetProperty("totalSamples").GetDouble();
                var top = tree.GetProperty("topFunctionsByTotal").EnumerateArray().Select(f => f.GetProperty("name").GetString()!).ToList();
                output.WriteLine($"{name} run {run.Key.Run}: {total:F3} ms in the profiler's call tree of the selection, {run.CpuMs:F3} ms CPU in the tables");
                Assert.True(Math.Abs(total - run.CpuMs) <= intervalMs, $"{name} run {run.Key.Run}: the selection holds {total:F3} ms of samples, the run {run.CpuMs:F3} ms of CPU");
                Assert.Contains(top, f => f.Contains(".Benchmark.Serializers.", StringComparison.Ordinal));
            }
        }
    }

    private static void Select(Viewers.Session profiler, List<JsonElement> threads, int threadId) =>
        profiler.Text("thread", "select", threads.Single(t => t.GetProperty("tid").GetInt32() == threadId).GetProperty("threadHandle").GetString()!);

    /// <summary>
    /// The frames of a speedscope file's heaviest path from the root (its Left Heavy flame graph's leftmost column) that
    /// hold at least <see cref="LabelledShare"/>, from the shown profile's open and close events.
    /// </summary>
    private static List<string> HeaviestPath(string file)
    {
        var root = JsonDocument.Parse(File.ReadAllText(file)).RootElement;
        var names = root.GetProperty("shared").GetProperty("frames").EnumerateArray().Select(f => f.GetProperty("name").GetString()!).ToList();
        var profile = root.GetProperty("profiles")[root.TryGetProperty("activeProfileIndex", out var active) ? active.GetInt32() : 0];
        var tree = new Node();
        var open = new List<Node> { tree };
        var last = profile.GetProperty("startValue").GetDouble();
        foreach (var e in profile.GetProperty("events").EnumerateArray())
        {
            var at = e.GetProperty("at").GetDouble();
            foreach (var node in open) node.Ms += at - last;
            last = at;
            var frame = e.GetProperty("frame").GetInt32();
            if (e.GetProperty("type").GetString() == "O") open.Add(open[^1].Child(frame));
            else open.RemoveAt(open.Count - 1);
        }
        var path = new List<string>();
        for (var node = tree; node.Children.Count > 0;)
        {
            var (frame, heaviest) = node.Children.MaxBy(c => c.Value.Ms);
            if (heaviest.Ms < tree.Ms * LabelledShare) break;
            path.Add(names[frame]);
            node = heaviest;
        }
        return path;
    }

    private sealed class Node
    {
        public double Ms { get; set; }
        public Dictionary<int, Node> Children { get; } = [];
        public Node Child(int frame) => Children.TryGetValue(frame, out var c) ? c : Children[frame] = new Node();
    }

    /// <summary>Speedscope's label for a frame: its name, or, when the box is narrow, its start and end around an ellipsis.</summary>
    private static bool Shows(string label, string frame)
    {
        if (label == frame) return true;
        var cut = label.IndexOf('…', StringComparison.Ordinal);
        return cut > 0 && frame.StartsWith(label[..cut], StringComparison.Ordinal) && frame.EndsWith(label[(cut + 1)..], StringComparison.Ordinal);
    }
}
