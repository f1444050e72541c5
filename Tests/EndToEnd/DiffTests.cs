using System.Globalization;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Diff;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Recorder.Launch;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// The .NET-vs-.NET-Framework comparison of the seeds, reproduced on one runtime: the same benchmark recorded for
/// real with dynamic code on (System.Text.Json and Newtonsoft.Json run emitted IL) and off (they fall back to
/// reflection), plus Google.Protobuf, whose hand-written code does not switch, as the control. Each side is three
/// launches, recorded alternately and compared as `esp diff E1 E2 E3 vs R1 R2 R3` compares them (each launch one sample): on this machine a whole
/// process can run 2x slower than the next one (docs/diff.md), which one launch per side cannot tell from the switch.
/// </summary>
public sealed class DiffRecordings : IDisposable
{
    public const string DynamicCode = "System.Runtime.CompilerServices.RuntimeFeature.IsDynamicCodeSupported";
    public static readonly string[] Switching = ["System.Text.Json", "Newtonsoft.Json"];
    public const string Control = "Google.Protobuf";
    // Five measured runs per launch: enough for Welch's test to see the switch through a busy machine's noise. With one
    // warm-up run before them and one call per run (--warmup 1 --ops 1): the structure from before the automatic warm-up.
    public const int Runs = 6;
    public const int Launches = 3;
    public const int Objects = 20_000;

    private readonly string _dir = Repo.NewTempDir("diff");

    public IReadOnlyList<TraceFolder> Emit { get; }
    public IReadOnlyList<TraceFolder> Reflection { get; }
    public IReadOnlyList<int> ExitCodes { get; }
    public TraceDiff Diff { get; }

    public DiffRecordings()
    {
        // Tiered compilation off on both sides: otherwise tier-0 code can still run in a measured run of either
        // configuration, at random (the tier-up waits for a quiet moment), which swamps the effect on a busy machine.
        string[] common = ["--n", Objects.ToString(CultureInfo.InvariantCulture), "--warmup", "1", "--runs", (Runs - 1).ToString(CultureInfo.InvariantCulture), "--ops", "1",
            // The control first: the benchmark runs serializers in the order given, and run after the switchers the
            // control inherited their configuration-dependent heap (their reflection fallbacks allocate far more), so its
            // own runs differed by up to 2x between the sides (7.6 ms, p=0.005, under load) without a line of its code changing.
            "--serializers", string.Join(",", [Control, .. Switching]), "--quiet", "--env", "DOTNET_TieredCompilation=0"];
        var emit = new List<TraceFolder>();
        var reflection = new List<TraceFolder>();
        var exitCodes = new List<int>();
        for (var launch = 1; launch <= Launches; launch++)
        {
            // Alternating, so a slow spell of the machine lands on both sides rather than on one.
            var (emitExit, emitFolder) = Recording.Record(Path.Combine(_dir, $"emit-{launch}"), common);
            var (reflectionExit, reflectionFolder) = Recording.Record(Path.Combine(_dir, $"reflection-{launch}"), [.. common, "--appcontext", DynamicCode + "=false"]);
            emit.Add(emitFolder);
            reflection.Add(reflectionFolder);
            exitCodes.AddRange([emitExit, reflectionExit]);
        }
        (Emit, Reflection, ExitCodes) = (emit, reflection, exitCodes);
        var options = new AnalyzerOptions();
        var baseline = emit.Select(f => Analyze(f, options)).ToList();
        var trace = reflection.Select(f => Analyze(f, options)).ToList();
        Diff = TraceDiffer.CompareLaunches(
            DiffSideReader.Pool([.. baseline.Select(b => b.Side)]), [.. baseline.Select(b => b.Runs)],
            DiffSideReader.Pool([.. trace.Select(t => t.Side)]), [.. trace.Select(t => t.Runs)]);
    }

    private static (DiffSide Side, IReadOnlyList<EtwSerializerProfiler.Analyzer.Model.RunAnalysis> Runs) Analyze(TraceFolder folder, AnalyzerOptions options)
    {
        using var input = TraceInput.Open(folder.Path);
        var analysis = new TraceAnalyzer(options).Analyze(input);
        return (DiffSideReader.From(analysis, input.ManifestPath, options), analysis.Runs);
    }

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }
}

[CollectionDefinition(Name)]
public sealed class DiffRecordingsCollection : ICollectionFixture<DiffRecordings>
{
    public const string Name = "diff recordings";
}

[EndToEnd]
[Collection(DiffRecordingsCollection.Name)]
public sealed class DiffTests(DiffRecordings recorded, Xunit.Abstractions.ITestOutputHelper output)
{
    private static string Esp => Path.Combine(Repo.BinDir, "esp.dll");

    [Fact]
    public void The_switch_holds_from_process_start_in_the_traced_benchmark()
    {
        Assert.All(recorded.ExitCodes, code => Assert.Equal(0, code));
        Assert.All(recorded.Emit, emit => Assert.True(Recording.Results(emit).DynamicCodeSupported));
        foreach (var folder in recorded.Reflection)
        {
            var reflection = Recording.Results(folder);
            Assert.False(reflection.DynamicCodeSupported);
            Assert.False(reflection.AppContextSwitches![DiffRecordings.DynamicCode]);
            // Under tracing the runtime reads the feature switch before Main: the recorder must pass it in a runtimeconfig.
            var manifest = TraceManifest.Load(folder.Manifest);
            Assert.Contains("--runtimeconfig", manifest.CommandLine, StringComparison.Ordinal);
            var config = JsonNode.Parse(File.ReadAllText(Path.Combine(folder.Path, BenchmarkRuntimeConfig.FileName)))!;
            Assert.False(config["runtimeOptions"]!["configProperties"]![DiffRecordings.DynamicCode]!.GetValue<bool>());
        }
        Assert.Equal(["both"], recorded.Diff.Rows.Select(r => r.Presence.ToString().ToLowerInvariant()).Distinct());
        Assert.Equal(3 * 2, recorded.Diff.Rows.Count);
        // Every launch's measured runs count, on both sides, and each launch is one sample of the row.
        Assert.All(recorded.Diff.Rows, r => Assert.Equal(DiffRecordings.Launches * (DiffRecordings.Runs - 1), r.Metric(RowDiff.DurationMs).Trace!.Runs));
        Assert.All(recorded.Diff.Rows, r => Assert.Equal(DiffRecordings.Launches * (DiffRecordings.Runs - 1), r.Metric(RowDiff.DurationMs).Baseline!.Runs));
        Assert.All(recorded.Diff.Rows, r => Assert.Equal(DiffRecordings.Launches, r.Metric(RowDiff.DurationMs).BaselineLaunches!.Runs));
        Assert.Equal(recorded.Emit.Select(f => f.Path), recorded.Diff.Baseline.Launches);
        Assert.DoesNotContain(recorded.Diff.Baseline.Warnings, w => w.Contains("launches differ", StringComparison.Ordinal));
    }

    [Fact]
    public void For_the_serializers_that_switch_the_reflection_and_activator_tags_carry_a_large_part_of_the_delta()
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
            output.WriteLine(detail);
            foreach (var r in rows)
                output.WriteLine($"  {r.Operation}: " + string.Join(", ", new[] { RowDiff.DurationMs, RowDiff.ThreadCpuMs }.Select(m => r.Metric(m)).Select(m => $"{m.Name} {m.Baseline!.Mean:F1}±{m.Baseline.StdDev:F1} -> {m.Trace!.Mean:F1}±{m.Trace.StdDev:F1} p={m.Noise.PValue:F3}")));
            Assert.True(lines.All(l => l.FactoredOut > 0) && lines.Any(l => l.Delta > 0), "no slowdown from the switch: " + detail);
            // On-CPU attribution puts about half of the slowdown in reflection frames (measured 50%); the rest is the
            // GC their boxing causes and the serializer's own slower path. EventPipe's safe-point samples said 93-117%.
            Assert.True(lines.Any(l => l.Delta > 0 && l.FactoredOut > 0.35 * l.Delta), "reflection/Activator tags do not carry a large part of the delta: " + detail);
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
            // Duration or the thread's CPU clock: another process's load can move either alone. Where the GCs fall
            // follows each configuration's allocations (the switchers allocate differently), so a GC that lands in
            // the control's runs on one side only is not the control's code: the size check leaves GC pauses out.
            var gcPause = control.Metric(RowDiff.GcPauseMs).Delta!.Value;
            var metrics = new[] { RowDiff.DurationMs, RowDiff.ThreadCpuMs }.Select(control.Metric).ToList();
            output.WriteLine($"{DiffRecordings.Control} {control.Operation}: " + string.Join(", ", metrics.Select(m => $"{m.Name} Δ {m.Delta:F2} ms (p={m.Noise.PValue:F3})")) + $", GC pause Δ {gcPause:F2} ms, effect {effect:F2} ms");
            Assert.True(metrics.Any(m => m.Noise.Significant != true || Math.Abs(m.Delta!.Value - gcPause) < 0.25 * effect),
                $"{DiffRecordings.Control} {control.Operation}: " + string.Join(", ", metrics.Select(m => $"{m.Name} Δ {m.Delta:F2} ms (p={m.Noise.PValue:F3})")) +
                $", GC pause Δ {gcPause:F2} ms, vs the switchers' smallest reflection Δ {effect:F2} ms");
            // Hand-written code calls no reflection in either configuration.
            Assert.True(Math.Abs(control.Explained[0].FactoredOutDelta) < 0.5, $"{DiffRecordings.Control} {control.Operation}: reflection Δ {control.Explained[0].FactoredOutDelta:F2} ms");
        }
    }

    [Fact]
    public void Esp_diff_prints_the_tables_and_writes_json()
    {
        var text = ProcessRunner.Dotnet(Esp, "diff", recorded.Emit[0].Path, recorded.Reflection[0].Path, "--tables", "all");
        Assert.True(text.ExitCode == 0, text.StdErr);
        foreach (var expected in new[] { "Duration, ms per operation", "CPU, ms per operation", "GC and allocations", "Explained:", "Reflection\\Interpreted invoke", "dynamic code NOT supported", "env DOTNET_TieredCompilation=0" })
            Assert.Contains(expected, text.StdOut, StringComparison.Ordinal);
        // One launch a side: no launches header, the note that says what one launch cannot show, and no verdict "sig".
        Assert.DoesNotContain("launches, each one sample", text.StdOut, StringComparison.Ordinal);
        Assert.Contains("one launch on each side: differences under", text.StdOut, StringComparison.Ordinal);
        Assert.DoesNotContain(" sig p", text.StdOut, StringComparison.Ordinal);
        // The terminal's default: a table per operation within 120 columns, with the same figures as the wide ones.
        var compact = ProcessRunner.Dotnet(Esp, "diff", recorded.Emit[0].Path, recorded.Reflection[0].Path);
        Assert.True(compact.ExitCode == 0, compact.StdErr);
        var lines = compact.StdOut.ReplaceLineEndings("\n").Split('\n');
        Assert.All(lines, l => Assert.True(l.Length <= 120, $"{l.Length} columns: {l}"));
        Assert.True(lines.Length < text.StdOut.Split('\n').Length / 2, $"compact {lines.Length} lines, all {text.StdOut.Split('\n').Length}");
        var wide = text.StdOut.ReplaceLineEndings("\n").Split("\n\n").Single(t => t.StartsWith("Duration, ms per operation", StringComparison.Ordinal)).Split('\n')[3..];
        Assert.Equal(recorded.Diff.Rows.Count, wide.Length);
        foreach (var cells in wide.Select(r => Regex.Split(r.Trim(), @"\s{2,}")))
        {
            // Serializer, Operation, N, Launches, Runs, Base ms, Trace ms, Δ ms, Δ %: the compact row has them in its order.
            var expected = "^" + string.Join(@"\s+", new[] { cells[0], cells[2], cells[5], cells[6], cells[8] }.Select(Regex.Escape)) + @"\s";
            Assert.Contains(lines, l => Regex.IsMatch(l, expected));
        }
        Assert.Contains("--tables all", compact.StdOut, StringComparison.Ordinal);

        var json = Path.Combine(Path.GetTempPath(), $"diff-{Guid.NewGuid():N}.json");
        var r = ProcessRunner.Dotnet(Esp, ["diff", .. recorded.Emit.Select(f => f.Path), "vs", .. recorded.Reflection.Select(f => f.Path),
            "--format", "json", "--out", json, "--serializers", "system.text.json"]);
        Assert.True(r.ExitCode == 0, r.StdErr);
        var doc = JsonDocument.Parse(File.ReadAllText(json)).RootElement;
        File.Delete(json);
        var rows = doc.GetProperty("rows").EnumerateArray().ToList();
        Assert.Equal(2, rows.Count);
        Assert.All(rows, row => Assert.Equal("System.Text.Json", row.GetProperty("serializer").GetString()));
        Assert.All(rows, row => Assert.True(row.GetProperty("explained").GetProperty("cpuMs").GetProperty("factoredOutDelta").GetDouble() > 0));
        // The CLI pools launches like the fixture: same runs, same means.
        Assert.Equal(recorded.Emit.Select(f => f.Path), doc.GetProperty("baseline").GetProperty("launches").EnumerateArray().Select(e => e.GetString()));
        Assert.Equal(recorded.Reflection.Select(f => f.Path), doc.GetProperty("trace").GetProperty("launches").EnumerateArray().Select(e => e.GetString()));
        foreach (var row in rows)
        {
            var expected = recorded.Diff.Rows.Single(d => d.Serializer == "System.Text.Json" && d.Operation == row.GetProperty("operation").GetString());
            Assert.Equal(expected.Metric(RowDiff.DurationMs).Delta!.Value, row.GetProperty("metrics").GetProperty("durationMs").GetProperty("delta").GetDouble(), 3);
        }
    }

    [Theory]
    [InlineData(Common.ExitCodes.Usage, "diff", "only-one")]
    [InlineData(Common.ExitCodes.Usage, "diff", "a", "b", "c")]
    [InlineData(Common.ExitCodes.Usage, "diff", "a", "b", "vs")]
    [InlineData(Common.ExitCodes.Usage, "diff", "vs", "a")]
    [InlineData(Common.ExitCodes.Usage, "diff", "a", "vs", "b", "vs", "c")]
    [InlineData(Common.ExitCodes.BadInput, "diff", "/no/such/baseline", "vs", "/no/such/trace", "/no/such/trace2")]
    [InlineData(Common.ExitCodes.Usage, "diff", "a", "b", "--format", "yaml")]
    [InlineData(Common.ExitCodes.BadInput, "diff", "/no/such/baseline", "/no/such/trace")]
    public void Diff_errors_are_one_line_with_a_distinct_exit_code(int expected, params string[] args)
    {
        var r = ProcessRunner.Dotnet(Esp, args);
        Assert.Equal(expected, r.ExitCode);
        Assert.Single(r.StdErr.Trim().Split('\n'));
    }
}
