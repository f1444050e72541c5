using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// The analyzer's reflection and Activator shares, named its usual way (managed frames from the EventPipe trace's
/// method events), held to an independent naming of the same perf samples: perf's own, from the runtime's perf map
/// (<see cref="PerfMapReflectionTruth"/>). The default benchmark's every serializer, deserialize and serialize.
/// The perf map is the test's truth, not a product setting: only this test turns it on, through the child's
/// environment. ESP_REFLECTION_TRUTH_TRACE=FOLDER checks an earlier recording made the same way instead.
/// </summary>
[EndToEnd]
public sealed class ReflectionTruthTests(ITestOutputHelper output) : IDisposable
{
    /// <summary>
    /// The child writes /tmp/perf-PID.map (JIT code by name) with W^X off, so JIT code lives in anonymous memory, which is
    /// where perf looks names up in the map. Precompiled (ReadyToRun) code is in no perf map: the core library's hot
    /// methods are recompiled at tier 1 after warm-up and then named; a sample that passes an unnamed core library
    /// frame does not count as named, and at least 90% must be.
    /// </summary>
    public static readonly string[] PerfMapEnvironment =
        ["--env", "DOTNET_PerfMapEnabled=3", "--env", "DOTNET_EnableWriteXorExecute=0"];

    /// <summary>
    /// Both figures classify the very same samples, so sampling noise cancels: what differs is naming (a frame the EventPipe
    /// map and the perf map name differently or only one names) and the GC windows. Measured: see docs/analyzer.md, "Attribution, checked".
    /// </summary>
    private const double Tolerance = 0.05;

    private readonly string _dir = Repo.NewTempDir("refl-truth");
    private int _pid;

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }

    [Fact]
    public async Task Every_serializers_reflection_share_matches_perfs_own_naming_of_the_same_samples_within_5_points()
    {
        var folder = Environment.GetEnvironmentVariable("ESP_REFLECTION_TRUTH_TRACE");
        if (folder is null)
        {
            var (exit, recorded, _) = await Recording.RecordAsync(Path.Combine(_dir, "trace"), ["--n", "10000", "--runs", "3", .. PerfMapEnvironment]);
            Assert.Equal(0, exit);
            folder = recorded.Path;
        }
        try
        {
            Check(folder);
        }
        finally
        {
            if (Environment.GetEnvironmentVariable("ESP_REFLECTION_TRUTH_TRACE") is null) RemovePerfMaps();
        }
    }

    private void Check(string folder)
    {
        var truth = PerfMapReflectionTruth.Compute(folder);
        using var input = TraceInput.Open(folder);
        var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
        _pid = analysis.Trace.ProcessId;
        Assert.NotNull(analysis.Trace.Kernel); // the CPU figures come from the kernel session

        var groups = analysis.Runs.Where(r => !r.IsWarmup && r.Key.Operation is "serialize" or "deserialize")
            .GroupBy(r => (r.Key.Serializer, r.Key.Operation)).ToList();
        Assert.True(groups.Count >= 20, $"only {groups.Count} serializer and operation pairs measured");
        var failures = new List<string>();
        foreach (var g in groups.OrderBy(g => g.Key.Operation).ThenBy(g => g.Key.Serializer))
        {
            var sampled = g.Sum(r => r.NonGcSampledMs);
            var tool = sampled == 0 ? 0 : g.Sum(r => r.TagMs("Reflection") + r.TagMs("Activator")) / sampled;
            var t = truth.SingleOrDefault(x => x.Serializer == g.Key.Serializer && x.Operation == g.Key.Operation);
            var line = $"{g.Key.Operation,-11} {g.Key.Serializer,-26} tool {tool,6:P1} ({sampled,7:F1} ms)  perf map {t?.Value,6:P1} ({t?.Samples} samples, {t?.Named} named)";
            output.WriteLine(line);
            if (t is null || t.Samples == 0) { failures.Add("no perf samples: " + line); continue; }
            // Most samples must have a named owner, or the truth would say little. 85%: the core library's precompiled
            // code is in no perf map until tier-1 recompiles it, and a warm-up that ends at its bound on a busy machine
            // leaves more of it (YamlDotNet serialize: 184 of 205 named, 89.8%, with both cores busy; 92-100% before).
            // Two samples of slack for small groups, as below: ObjectGraph serialize once had 33 of 39 named (84.6%)
            // on a CI run with the machine at load average 10-16.
            if (t.Named < 0.85 * t.Samples - 2) failures.Add("perf named too few: " + line);
            // 5 points, or two samples where the group has fewer than 40: one sample is 3 points of a 33-sample group,
            // and two samples named apart by the two maps missed 5 points by 1.1 in a CI run (System.Text.Json
            // serialize: tool 0.0%, perf map 6.1%, 2 of 33 samples) while every larger group held. One such pair found
            // later was this classifier lacking the rule's invoked-method exception (PerfMapReflectionTruthRuleTests).
            if (Math.Abs(tool - t.Value) > Math.Max(Tolerance, 2.0 / t.Samples + 1e-9)) failures.Add(line);
        }
        Assert.True(failures.Count == 0, string.Join("\n", failures));
    }

    /// <summary>The runtime leaves its perf maps in /tmp: the recorded child's go with the test's recording.</summary>
    private void RemovePerfMaps()
    {
        if (_pid == 0) return;
        File.Delete($"/tmp/perf-{_pid}.map");
        File.Delete($"/tmp/perfinfo-{_pid}.map");
    }
}
