using System.Globalization;
using System.Text.Json;
using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Diff;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Recorder.Commands;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// The .NET-vs-.NET-Framework comparison of the seeds, reproduced on one runtime: the same benchmark recorded for
/// real with dynamic code on (System.Text.Json and Newtonsoft.Json run emitted IL) and off (they fall back to
/// reflection), plus Google.Protobuf, whose hand-written code does not switch, as the control.
/// </summary>
public sealed class DiffRecordings : IDisposable
{
    public const string DynamicCode = "System.Runtime.CompilerServices.RuntimeFeature.IsDynamicCodeSupported";
    public static readonly string[] Switching = ["System.Text.Json", "Newtonsoft.Json"];
    public const string Control = "Google.Protobuf";
    // Five measured runs per side: enough for Welch's test to see the switch through a busy machine's noise.
    public const int Runs = 6;
    public const int Objects = 20_000;

    private readonly string _dir = Repo.NewTempDir("diff");

    public TraceFolder Emit { get; }
    public TraceFolder Reflection { get; }
    public (int Emit, int Reflection) ExitCodes { get; }
    public TraceDiff Diff { get; }

    public DiffRecordings()
    {
        // Tiered compilation off on both sides: otherwise tier-0 code can still run in a measured run of either
        // configuration, at random (the tier-up waits for a quiet moment), which swamps the effect on a busy machine.
        string[] common = ["--n", Objects.ToString(CultureInfo.InvariantCulture), "--runs", Runs.ToString(CultureInfo.InvariantCulture),
            "--serializers", string.Join(",", [.. Switching, Control]), "--quiet", "--env", "DOTNET_TieredCompilation=0"];
        int emitExit, reflectionExit;
        (emitExit, Emit) = Recording.Record(Path.Combine(_dir, "emit"), common);
        (reflectionExit, Reflection) = Recording.Record(Path.Combine(_dir, "reflection"), [.. common, "--appcontext", DynamicCode + "=false"]);
        ExitCodes = (emitExit, reflectionExit);
        var options = new AnalyzerOptions();
        var (baseline, baselineRuns) = Analyze(Emit, options);
        var (trace, traceRuns) = Analyze(Reflection, options);
        Diff = TraceDiffer.Compute(baseline, baselineRuns, trace, traceRuns);
    }

    private static (DiffSide, List<EtwSerializerProfiler.Analyzer.Model.RunAnalysis>) Analyze(TraceFolder folder, AnalyzerOptions options)
    {
        using var input = TraceInput.Open(folder.Path);
        var analysis = new TraceAnalyzer(options).Analyze(input);
        return (DiffSideReader.From(analysis, input.ManifestPath, options), analysis.Runs);
    }

    public void Dispose()
    {
        try { Directory.Delete(_dir, recursive: true); } catch (IOException) { }
    }
}

[CollectionDefinition(Name)]
public sealed class DiffRecordingsCollection : ICollectionFixture<DiffRecordings>
{
    public const string Name = "diff recordings";
}

[Collection(DiffRecordingsCollection.Name)]
public sealed class DiffTests(DiffRecordings recorded)
{
    private static string Esp => Path.Combine(Repo.BinDir, "esp.dll");

    [Fact]
    public void The_switch_holds_from_process_start_in_the_traced_benchmark()
    {
        Assert.Equal((0, 0), recorded.ExitCodes);
        var emit = Recording.Results(recorded.Emit);
        var reflection = Recording.Results(recorded.Reflection);
        Assert.True(emit.DynamicCodeSupported);
        Assert.False(reflection.DynamicCodeSupported);
        Assert.False(reflection.AppContextSwitches![DiffRecordings.DynamicCode]);
        // Under tracing the runtime reads the feature switch before Main: the recorder must pass it in a runtimeconfig.
        var manifest = Manifest.Load(recorded.Reflection.Manifest);
        Assert.Contains("--runtimeconfig", manifest.CommandLine, StringComparison.Ordinal);
        var config = JsonNode.Parse(File.ReadAllText(Path.Combine(recorded.Reflection.Path, BenchmarkRuntimeConfig.FileName)))!;
        Assert.False(config["runtimeOptions"]!["configProperties"]![DiffRecordings.DynamicCode]!.GetValue<bool>());
        Assert.Equal(["both"], recorded.Diff.Rows.Select(r => r.Presence.ToString().ToLowerInvariant()).Distinct());
        Assert.Equal(3 * 2, recorded.Diff.Rows.Count);
        Assert.All(recorded.Diff.Rows, r => Assert.Equal(DiffRecordings.Runs - 1, r.Metric(RowDiff.DurationMs).Trace!.Runs));
    }

    [Fact]
    public void For_the_serializers_that_switch_the_reflection_and_activator_tags_carry_most_of_the_delta()
    {
        foreach (var serializer in DiffRecordings.Switching)
        {
            var rows = recorded.Diff.Rows.Where(r => r.Serializer == serializer).ToList();
            Assert.Equal(2, rows.Count);
            // Summed over serialize and deserialize, as the seeds' table sums a serializer's test. Duration and
            // sampled CPU grow when other processes preempt the benchmark; thread CPU does not, so any one may carry it.
            var lines = new[] { RowDiff.DurationMs, RowDiff.CpuMs, RowDiff.ThreadCpuMs }.Select(metric => (
                Metric: metric,
                Delta: rows.Sum(r => r.Metric(metric).Delta!.Value),
                FactoredOut: rows.Sum(r => r.Explained.Single(e => e.Metric == metric).FactoredOutDelta))).ToList();
            var detail = $"{serializer}: " + string.Join(", ", lines.Select(l => $"{l.Metric} Δ {l.Delta:F1} ms of which reflection+activator {l.FactoredOut:F1} ms")) + "; " +
                string.Join("; ", rows.Select(r => $"{r.Operation}: {string.Join(", ", r.Tags.Take(3).Select(t => $"{t.Name} {t.Delta:+0.0;-0.0}"))}"));
            Assert.True(lines.All(l => l.FactoredOut > 0) && lines.Any(l => l.Delta > 0), "no slowdown from the switch: " + detail);
            Assert.True(lines.Any(l => l.Delta > 0 && l.FactoredOut > 0.5 * l.Delta), "reflection/Activator tags do not carry most of the delta: " + detail);
            // The tag that grew most is a reflection or Activator tag in at least one operation (the own tag may
            // shrink by more: the emitted accessors it used to contain are gone).
            Assert.Contains(rows, r => r.Tags.Where(t => t.Delta > 0).MaxBy(t => t.Delta) is { } top &&
                (top.Name.StartsWith("Reflection\\", StringComparison.Ordinal) || top.Name.StartsWith("Activator\\", StringComparison.Ordinal)));
        }
    }

    [Fact]
    public void The_control_that_does_not_switch_changes_little_or_not_significantly()
    {
        foreach (var control in recorded.Diff.Rows.Where(r => r.Serializer == DiffRecordings.Control))
        {
            // "Small" is measured against the effect being demonstrated: the reflection cost the switchers took on
            // in the same operation (robust, unlike their total Δ, which a busy machine can shrink or inflate).
            var effect = recorded.Diff.Rows.Where(r => r.Operation == control.Operation && DiffRecordings.Switching.Contains(r.Serializer))
                .Min(r => r.Explained[0].FactoredOutDelta);
            // Duration or the thread's CPU clock: a GC in one run, or another process's load, can move either alone.
            var metrics = new[] { RowDiff.DurationMs, RowDiff.ThreadCpuMs }.Select(control.Metric).ToList();
            Assert.True(metrics.Any(m => m.Noise.Significant != true || Math.Abs(m.Delta!.Value) < 0.25 * effect),
                $"{DiffRecordings.Control} {control.Operation}: " + string.Join(", ", metrics.Select(m => $"{m.Name} Δ {m.Delta:F2} ms (p={m.Noise.PValue:F3})")) +
                $" vs the switchers' smallest reflection Δ {effect:F2} ms");
            // Hand-written code calls no reflection in either configuration.
            Assert.True(Math.Abs(control.Explained[0].FactoredOutDelta) < 0.5, $"{DiffRecordings.Control} {control.Operation}: reflection Δ {control.Explained[0].FactoredOutDelta:F2} ms");
        }
    }

    [Fact]
    public void Esp_diff_prints_the_tables_and_writes_json()
    {
        var text = ProcessRunner.Dotnet(Esp, "diff", recorded.Emit.Path, recorded.Reflection.Path);
        Assert.True(text.ExitCode == 0, text.StdErr);
        foreach (var expected in new[] { "Duration, ms per run", "CPU, ms per run", "GC and allocations", "Explained:", "Reflection\\Interpreted invoke", "dynamic code NOT supported", "env DOTNET_TieredCompilation=0" })
            Assert.Contains(expected, text.StdOut, StringComparison.Ordinal);

        var json = Path.Combine(Path.GetTempPath(), $"diff-{Guid.NewGuid():N}.json");
        var r = ProcessRunner.Dotnet(Esp, "diff", recorded.Emit.Path, recorded.Reflection.Path, "--format", "json", "--out", json, "--serializers", "system.text.json");
        Assert.True(r.ExitCode == 0, r.StdErr);
        var doc = JsonDocument.Parse(File.ReadAllText(json)).RootElement;
        File.Delete(json);
        var rows = doc.GetProperty("rows").EnumerateArray().ToList();
        Assert.Equal(2, rows.Count);
        Assert.All(rows, row => Assert.Equal("System.Text.Json", row.GetProperty("serializer").GetString()));
        Assert.All(rows, row => Assert.True(row.GetProperty("explained").GetProperty("cpuMs").GetProperty("factoredOutDelta").GetDouble() > 0));
    }

    [Theory]
    [InlineData(Common.ExitCodes.Usage, "diff", "only-one")]
    [InlineData(Common.ExitCodes.Usage, "diff", "a", "b", "--format", "yaml")]
    [InlineData(Common.ExitCodes.BadInput, "diff", "/no/such/baseline", "/no/such/trace")]
    public void Diff_errors_are_one_line_with_a_distinct_exit_code(int expected, params string[] args)
    {
        var r = ProcessRunner.Dotnet(Esp, args);
        Assert.Equal(expected, r.ExitCode);
        Assert.Single(r.StdErr.Trim().Split('\n'));
    }
}
