using System.Text.Json;
using EtwSerializerProfiler.Analyzer.Diff;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Tests.Analyzer.Diff;

/// <summary>The diff on synthetic runs: matching, deltas, noise marking, the explained view and one-sided rows.</summary>
public sealed class TraceDiffTests
{
    private const string Stj = "System.Text.Json";
    private const string Invoke = @"Reflection\Interpreted invoke";
    private const string Activator = @"Activator\CreateInstance";
    private static readonly DiffSide Emit = Side("emit");
    private static readonly DiffSide Reflection = Side("reflection");

    private static DiffSide Side(string path, Dictionary<string, string>? unsupported = null) =>
        new(path, ".NET 10.0", [], unsupported ?? [], []);

    private static RunAnalysis Run(string serializer, string operation, int run, double durationMs, params (string Tag, double Ms)[] tags)
    {
        var r = new RunDraft { Key = new RunKey(serializer, operation, 1000, run), StartMs = 100 * run, EndMs = 100 * run + durationMs };
        foreach (var (tag, ms) in tags) r.TagTable[tag] = ms;
        r.CpuMs = tags.Sum(t => t.Ms);
        return r.Freeze();
    }

    /// <summary>
    /// Each run number as its own launch (its own trace, with one measured run), so that the launch means are the
    /// runs: what these tests assert on Welch's test then holds on launches, the unit of a comparison.
    /// </summary>
    private static TraceDiff ByRun(List<RunAnalysis> b, List<RunAnalysis> t) =>
        TraceDiffer.CompareLaunches(AsLaunches(Emit, b.Select(r => r.Key.Run).Distinct().Count()), Launches(b),
            AsLaunches(Reflection, t.Select(r => r.Key.Run).Distinct().Count()), Launches(t));

    private static IReadOnlyList<IEnumerable<RunAnalysis>> Launches(IEnumerable<RunAnalysis> runs) =>
        [.. runs.GroupBy(r => r.Key.Run).Select(g => g.AsEnumerable())];

    private static DiffSide AsLaunches(DiffSide side, int count) =>
        side with { Launches = [.. Enumerable.Range(1, count).Select(i => $"{side.Path}-{i}")] };

    /// <summary>Four measured runs per side: emitted code at ~20 ms, reflection adding ~30 ms of reflection/Activator samples.</summary>
    private static (List<RunAnalysis> Baseline, List<RunAnalysis> Trace) Switched()
    {
        double[] own = [19.0, 20.0, 19.5, 20.5];
        var baseline = own.Select((ms, i) => Run(Stj, "deserialize", i + 1, ms + 0.5, (@"Deserialize\" + Stj, ms))).ToList();
        var trace = own.Select((ms, i) => Run(Stj, "deserialize", i + 1, ms + 30.5 + (i % 2 == 0 ? 0.3 : -0.3),
            (@"Deserialize\" + Stj, ms + (i % 2 == 0 ? 0.3 : -0.3)), (Invoke, 25.0 + 0.2 * i), (Activator, 5.0 - 0.2 * i))).ToList();
        return (baseline, trace);
    }

    [Fact]
    public void Nothing_compared_names_the_sizes_when_the_same_serializers_ran_at_others()
    {
        RunAnalysis At(string serializer, int objects) =>
            new RunDraft { Key = new RunKey(serializer, "serialize", objects, 1), StartMs = 0, EndMs = 1, CpuMs = 1 }.Freeze();
        var diff = TraceDiffer.CompareLaunches(Emit, [[At(Stj, 100), At(Stj, 10_000)]], Reflection, [[At(Stj, 100_000)]]);
        Assert.Equal("nothing to compare: no serializer, operation and object count has runs in both traces (2 only in the baseline, 1 only in the trace): "
            + "the same serializers at other sizes, N 100, 10,000 in the baseline, N 100,000 in the trace", diff.NothingCompared());
        // Other serializers: no sizes to name.
        var other = TraceDiffer.CompareLaunches(Emit, [[At(Stj, 100)]], Reflection, [[At("Reflection", 100)]]);
        Assert.EndsWith("(1 only in the baseline, 1 only in the trace)", other.NothingCompared(), StringComparison.Ordinal);
    }

    [Fact]
    public void A_switch_to_reflection_is_explained_by_the_reflection_and_activator_tags()
    {
        var (b, t) = Switched();
        var row = Assert.Single(ByRun(b, t).Rows);
        Assert.Equal(Presence.Both, row.Presence);

        var duration = row.Metric(RowDiff.DurationMs);
        Assert.Equal(4, duration.Baseline!.Runs);
        Assert.Equal(30.0, duration.Delta!.Value, 6);
        Assert.Equal(30.0 / 20.25, duration.RelativeDelta!.Value, 6);
        Assert.True(duration.Noise.Significant);
        Assert.True(duration.Noise.CiLow > 25 && duration.Noise.CiHigh < 35);

        // The tag that explains the change is on top; tags match by path, absent = 0 ms.
        Assert.Equal(Invoke, row.Tags[0].Name);
        Assert.Equal(0, row.Tags[0].Baseline!.Mean);
        Assert.Equal(25.3, row.Tags[0].Delta!.Value, 6);
        Assert.Equal([Invoke, Activator, @"Deserialize\" + Stj], row.Tags.Select(x => x.Name));
        Assert.False(row.Tags[2].Noise.Significant);

        foreach (var e in row.Explained)
        {
            Assert.Equal(30.0, e.FactoredOutDelta, 6);
            Assert.True(e.FactoredOutShare > 0.9);
            Assert.True(e.RemainderWithinNoise);
            Assert.True(e.WithinTolerance);
            Assert.Equal("explained by factored-out tags", DiffReport.Verdict(row, e));
        }
        Assert.Equal([RowDiff.DurationMs, RowDiff.CpuMs], row.Explained.Select(e => e.Metric));
    }

    [Fact]
    public void A_slowdown_outside_the_factored_out_tags_is_reported_as_not_explained()
    {
        var b = Enumerable.Range(1, 4).Select(i => Run("DataContract", "deserialize", i, 40 + i, (@"Deserialize\DataContract", 40 + i))).ToList();
        var t = Enumerable.Range(1, 4).Select(i => Run("DataContract", "deserialize", i, 90 + i, (@"Deserialize\DataContract", 80 + i), (Invoke, 10))).ToList();
        var row = Assert.Single(ByRun(b, t).Rows);
        var e = row.Explained.Single(x => x.Metric == RowDiff.DurationMs);
        Assert.Equal(0.2, e.FactoredOutShare!.Value, 6);
        Assert.Equal(40, e.Remainder.Delta!.Value, 6);
        Assert.False(e.RemainderWithinNoise);
        Assert.Equal("not explained by factored-out tags", DiffReport.Verdict(row, e));
    }

    [Fact]
    public void Warm_up_runs_are_left_out()
    {
        var (b, t) = Switched();
        var warm = Run(Stj, "deserialize", 0, 500, (@"Deserialize\" + Stj, 480)) with { IsWarmup = true };
        var row = Assert.Single(ByRun([warm, .. b], t).Rows);
        Assert.Equal(4, row.Metric(RowDiff.DurationMs).Baseline!.Runs);
        Assert.Equal(20.25, row.Metric(RowDiff.DurationMs).Baseline!.Mean, 6);
    }

    [Fact]
    public void A_total_that_does_not_move_can_still_hide_a_significant_shift_between_tags()
    {
        // The case from a real diff (Newtonsoft.Json serialize): CPU +1.08 ms, not significant; remainder -3.87 ms, p=0.026.
        static RunAnalysis Shifted(int run, double total, double reflection) =>
            Run(Stj, "serialize", run, total, (@"Reflection\Field access", reflection), (@"Serialize\" + Stj, total - reflection));
        var b = new[] { (10.0, 0.1), (12.5, 0.1), (9.5, 0.1), (12.0, 0.1) }.Select((x, i) => Shifted(i + 1, x.Item1, x.Item2)).ToList();
        var t = new[] { (11.0, 4.0), (10.0, 4.2), (12.5, 3.9), (10.5, 4.1) }.Select((x, i) => Shifted(i + 1, x.Item1, x.Item2)).ToList();
        var row = Assert.Single(ByRun(b, t).Rows);
        var e = row.Explained.Single(x => x.Metric == RowDiff.DurationMs);
        Assert.False(row.Metric(RowDiff.DurationMs).Noise.Significant);
        Assert.True(e.Remainder.Noise.Significant);
        Assert.StartsWith("no significant change in total, but a shift: factored-out tags +3.95 ms, the rest -3.95 ms", DiffReport.Verdict(row, e), StringComparison.Ordinal);
    }

    [Fact]
    public void A_control_that_only_jitters_is_not_significant()
    {
        var b = new[] { 3.1, 2.8, 3.4, 2.9 }.Select((ms, i) => Run("Google.Protobuf", "serialize", i + 1, ms, (@"Serialize\Google.Protobuf", ms))).ToList();
        var t = new[] { 3.0, 3.3, 2.7, 3.2 }.Select((ms, i) => Run("Google.Protobuf", "serialize", i + 1, ms, (@"Serialize\Google.Protobuf", ms))).ToList();
        var row = Assert.Single(ByRun(b, t).Rows);
        Assert.False(row.Metric(RowDiff.DurationMs).Noise.Significant);
        Assert.All(row.Explained, e => Assert.Equal("no change", DiffReport.Verdict(row, e)));
    }

    [Fact]
    public void One_run_per_side_says_noise_cannot_be_judged()
    {
        var row = Assert.Single(TraceDiffer.Compute(Emit, [Run(Stj, "serialize", 0, 10, (@"Serialize\" + Stj, 9))],
            Reflection, [Run(Stj, "serialize", 0, 20, (@"Serialize\" + Stj, 9), (Invoke, 10))]).Rows);
        Assert.All(row.Metrics, m => Assert.Equal(NoiseVerdict.NotEnoughRuns, m.Noise.Reason));
        Assert.Equal(10, row.Metric(RowDiff.DurationMs).Delta);
        Assert.All(row.Explained, e => Assert.Null(e.RemainderWithinNoise));
        var text = DiffReport.Render(TraceDiffer.Compute(Emit, [Run(Stj, "serialize", 0, 10)], Reflection, [Run(Stj, "serialize", 0, 20)]), TableFormat.Text);
        Assert.Contains(" n/a", text, StringComparison.Ordinal);
        Assert.Contains(NoiseVerdict.NotEnoughRuns, text, StringComparison.Ordinal);
    }

    [Fact]
    public void The_compact_view_fits_a_terminal_and_names_what_moved_with_its_cause()
    {
        var (b, t) = Switched(); // CPU 19.75 -> 49.75 ms (+152%), duration 20.25 -> 50.25 (+148%), the rise under Reflection\Interpreted invoke (+25.3 ms) and Activator
        b.Add(Run("ServiceStack.Text", "serialize", 1, 30, (@"Serialize\ServiceStack.Text", 29)));
        var words = string.Join(' ', Enumerable.Repeat("Dynamic code generation is not supported.", 6));
        var diff = TraceDiffer.CompareLaunches(AsLaunches(Emit, 4), Launches(b),
            AsLaunches(Side("reflection", new() { ["ServiceStack.Text"] = "not supported in this configuration: " + words }), 4), Launches(t));
        var text = DiffReport.Render(diff, TableFormat.Text, ReportTables.Compact);
        var lines = text.ReplaceLineEndings("\n").Split('\n');
        Assert.All(lines, l => Assert.True(l.Length <= PlainText.Width, $"{l.Length} columns: {l}"));
        Assert.Contains("deserialize, baseline → trace", text, StringComparison.Ordinal);
        Assert.Contains("Beyond the launch-to-launch noise, largest CPU Δ first (significant on the launches' means):", lines);
        Assert.Contains(@"  System.Text.Json deserialize N=1,000: CPU +152%, duration +148%; most moved: Reflection\Interpreted invoke +25.30 ms;", text, StringComparison.Ordinal);
        Assert.Contains("explained by Reflection* and Activator* tags", text, StringComparison.Ordinal);
        Assert.DoesNotContain("Explained:", text, StringComparison.Ordinal); // the wide tables are --tables all's
        Assert.Contains("--tables all", text, StringComparison.Ordinal);
        // The one-sided row keeps its note, wrapped under the table.
        Assert.Contains("Only in one trace", text, StringComparison.Ordinal);
        Assert.Contains(lines, l => l.StartsWith("  ServiceStack.Text serialize N=1,000: not run in trace: not supported in this configuration:", StringComparison.Ordinal));
        Assert.Contains("Explained:", DiffReport.Render(diff, TableFormat.Text), StringComparison.Ordinal);

        // Nothing beyond the noise: said in one line, no list.
        var (same, _) = Switched();
        var quiet = DiffReport.Render(ByRun(same, [.. same.Select(r => Run(Stj, "deserialize", r.Key.Run + 10, r.DurationMs, (@"Deserialize\" + Stj, r.CpuMs)))]), TableFormat.Text, ReportTables.Compact);
        Assert.Contains("Nothing moved beyond the launch-to-launch noise.", quiet, StringComparison.Ordinal);
    }

    [Fact]
    public void Rows_in_only_one_trace_are_listed_with_the_reason_not_dropped()
    {
        var (b, t) = Switched();
        b.Add(Run("ServiceStack.Text", "serialize", 1, 30, (@"Serialize\ServiceStack.Text", 29)));
        b.Add(Run("ServiceStack.Text", "serialize", 2, 31, (@"Serialize\ServiceStack.Text", 30)));
        t.Add(Run("YamlDotNet", "serialize", 1, 300));
        var trace = Side("reflection", new() { ["ServiceStack.Text"] = "not supported in this configuration: Dynamic code generation is not supported on this platform." });
        var baseline = Side("emit", new() { ["XmlSerializer"] = "failed" });
        var diff = TraceDiffer.Compute(baseline, b, trace, t);

        Assert.Equal(3, diff.Rows.Count);
        var onlyBaseline = diff.Rows.Single(r => r.Serializer == "ServiceStack.Text");
        Assert.Equal(Presence.OnlyInBaseline, onlyBaseline.Presence);
        Assert.StartsWith("not run in trace: not supported in this configuration", onlyBaseline.Note, StringComparison.Ordinal);
        Assert.Equal(2, onlyBaseline.Metric(RowDiff.DurationMs).Baseline!.Runs);
        Assert.Null(onlyBaseline.Metric(RowDiff.DurationMs).Trace);
        Assert.Null(onlyBaseline.Metric(RowDiff.DurationMs).Delta);
        Assert.Empty(onlyBaseline.Explained);
        var onlyTrace = diff.Rows.Single(r => r.Serializer == "YamlDotNet");
        Assert.Equal(Presence.OnlyInTrace, onlyTrace.Presence);
        Assert.Null(onlyTrace.Note);

        var text = DiffReport.Render(diff, TableFormat.Text);
        Assert.Contains("Only in one trace", text, StringComparison.Ordinal);
        Assert.Contains("not run in trace: not supported in this configuration", text, StringComparison.Ordinal);
        // A serializer unsupported on one side with no rows anywhere is still named.
        Assert.Contains("not run in baseline: failed", text, StringComparison.Ordinal);

        // The header says the serializer sets differ and how, before any table.
        Assert.Contains(DiffReport.Header(diff), l => l.StartsWith(
            "serializers differ: compared 1 (System.Text.Json); only in baseline 1 (ServiceStack.Text); only in trace 1 (YamlDotNet); not run in either 1 (XmlSerializer)", StringComparison.Ordinal));
        var sets = SerializerSets.Of(diff);
        Assert.False(sets.Same);
        Assert.True(SerializerSets.Of(TraceDiffer.Compute(Emit, Switched().Baseline, Reflection, Switched().Trace)).Same);
        // A serializer both sides refused (BinaryFormatter on .NET 10, twice) is no difference: no "serializers differ".
        var refused = new Dictionary<string, string> { ["BinaryFormatter"] = "unsupported" };
        var alike = TraceDiffer.Compute(Side("emit", refused), Switched().Baseline, Side("reflection", new(refused)), Switched().Trace);
        Assert.True(SerializerSets.Of(alike).Same);
        Assert.DoesNotContain(DiffReport.Header(alike), l => l.StartsWith("serializers differ", StringComparison.Ordinal));

        var json = JsonDocument.Parse(DiffReport.Render(diff, TableFormat.Json)).RootElement;
        Assert.Equal(["ServiceStack.Text"], json.GetProperty("serializers").GetProperty("onlyInBaseline").EnumerateArray().Select(e => e.GetString()));
        Assert.Equal(["XmlSerializer"], json.GetProperty("serializers").GetProperty("notRun").EnumerateArray().Select(e => e.GetString()));
        var presences = json.GetProperty("rows").EnumerateArray().ToDictionary(r => r.GetProperty("serializer").GetString()!, r => r.GetProperty("presence").GetString());
        Assert.Equal("onlyInBaseline", presences["ServiceStack.Text"]);
        Assert.Equal("onlyInTrace", presences["YamlDotNet"]);
        Assert.Equal("both", presences[Stj]);
    }

    [Fact]
    public void Json_follows_the_documented_field_names()
    {
        var (b, t) = Switched();
        var json = JsonDocument.Parse(DiffReport.Render(ByRun(b, t), TableFormat.Json)).RootElement;
        Assert.Equal(DiffReport.SchemaVersion, json.GetProperty("schemaVersion").GetInt32());
        Assert.Equal("welch-t", json.GetProperty("method").GetProperty("test").GetString());
        Assert.Equal(0.05, json.GetProperty("method").GetProperty("alpha").GetDouble());
        Assert.Equal("emit", json.GetProperty("baseline").GetProperty("path").GetString());
        Assert.Equal("reflection", json.GetProperty("trace").GetProperty("path").GetString());
        var row = json.GetProperty("rows")[0];
        foreach (var field in new[] { "serializer", "operation", "objects", "presence", "metrics", "tags", "explained" })
            Assert.True(row.TryGetProperty(field, out _), $"row lacks '{field}'");
        foreach (var metric in new[] { RowDiff.DurationMs, RowDiff.CpuMs, RowDiff.GcCount, RowDiff.GcPauseMs, RowDiff.AllocatedBytes })
        {
            var m = row.GetProperty("metrics").GetProperty(metric);
            foreach (var field in new[] { "baseline", "trace", "delta", "relativeDelta", "noise" }) Assert.True(m.TryGetProperty(field, out _), $"{metric} lacks '{field}'");
            foreach (var field in new[] { "significant", "pValue", "ciLow", "ciHigh", "degreesOfFreedom", "reason" }) Assert.True(m.GetProperty("noise").TryGetProperty(field, out _));
            foreach (var field in new[] { "runs", "mean", "stdDev" }) Assert.True(m.GetProperty("trace").TryGetProperty(field, out _));
        }
        Assert.Equal(Invoke, row.GetProperty("tags")[0].GetProperty("tag").GetString());
        var explained = row.GetProperty("explained").GetProperty(RowDiff.DurationMs);
        foreach (var field in new[] { "delta", "factoredOutDelta", "factoredOutShare", "remainder", "remainderRelative", "remainderNoise", "remainderWithinNoise", "withinTolerance", "verdict" })
            Assert.True(explained.TryGetProperty(field, out _), $"explained lacks '{field}'");
        Assert.True(explained.GetProperty("remainderWithinNoise").GetBoolean());
    }

    [Fact]
    public void Csv_has_a_line_per_metric_tag_and_remainder_and_markdown_has_tables()
    {
        var (b, t) = Switched();
        var diff = TraceDiffer.Compute(Emit, b, Reflection, t);
        var csv = DiffReport.Render(diff, TableFormat.Csv).Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(1 + 5 + 3 + 2, csv.Length);
        Assert.StartsWith("serializer,operation,objects,presence,kind,name,", csv[0], StringComparison.Ordinal);
        Assert.Contains(csv, l => l.Contains(",tag,Reflection\\Interpreted invoke,", StringComparison.Ordinal));
        var md = DiffReport.Render(diff, TableFormat.Markdown);
        Assert.Contains("| " + Stj + " | deserialize |", md, StringComparison.Ordinal);
        Assert.Contains("### Explained", md, StringComparison.Ordinal);
    }

    [Fact]
    public void Thread_cpu_splits_by_the_sample_share_so_preemption_does_not_inflate_it()
    {
        static RunAnalysis WithThreadCpu(RunAnalysis r, double threadCpuMs) => r with
        {
            InProcess = new RunResult
            {
                Serializer = r.Key.Serializer, Operation = r.Key.Operation, Data = "BookShelf", Objects = r.Key.Objects, Run = r.Key.Run,
                DurationMs = r.DurationMs, GcCount = GcCounts.Zero, GcPauseMs = 0, AllocatedBytes = 0, CpuMs = threadCpuMs,
            },
        };
        // Baseline: 10 ms of own code. Trace: the same 10 ms plus 10 ms of reflection, but sampled on a busy machine
        // where preemption doubled every tag's ms; the thread's CPU clock says 20 ms.
        var b = new[] { 9.8, 10.2, 10.0 }.Select((ms, i) => WithThreadCpu(Run(Stj, "serialize", i + 1, ms, (@"Serialize" + Stj, ms)), ms)).ToList();
        var t = new[] { 19.8, 20.2, 20.0 }.Select((ms, i) => WithThreadCpu(Run(Stj, "serialize", i + 1, 2 * ms, (@"Serialize" + Stj, ms), (Invoke, ms)), ms)).ToList();
        var row = Assert.Single(ByRun(b, t).Rows);
        Assert.Equal(10, row.Metric(RowDiff.ThreadCpuMs).Delta!.Value, 6);
        Assert.Equal(30, row.Metric(RowDiff.CpuMs).Delta!.Value, 6);
        var thread = row.Explained.Single(e => e.Metric == RowDiff.ThreadCpuMs);
        Assert.Equal(10, thread.FactoredOutDelta, 6);
        Assert.Equal(0, thread.Remainder.Delta!.Value, 6);
        Assert.Equal("explained by factored-out tags", DiffReport.Verdict(row, thread));
        Assert.Contains("thread CPU", DiffReport.Render(ByRun(b, t), TableFormat.Text), StringComparison.Ordinal);
        // Without in-process results (a foreign program recorded with `record -- cmd`) the metric is left out.
        Assert.Null(Assert.Single(TraceDiffer.Compute(Emit, [Run(Stj, "serialize", 1, 10)], Reflection, [Run(Stj, "serialize", 1, 10)]).Rows).TryMetric(RowDiff.ThreadCpuMs));
    }

    [Fact]
    public void Reflection_that_replaces_emitted_code_counted_under_the_serializer_explains_more_than_the_delta()
    {
        // Emitted accessors run inside the serializer's own frames (20 ms); without dynamic code those 10 ms of
        // accessor work become 25 ms of reflection: Δ = 15, factored out = 25, the rest shrinks by 10.
        var b = new[] { 19.8, 20.2, 20.0, 20.1 }.Select((ms, i) => Run(Stj, "serialize", i + 1, ms, (@"Serialize\" + Stj, ms))).ToList();
        var t = new[] { 9.8, 10.2, 10.0, 10.1 }.Select((ms, i) => Run(Stj, "serialize", i + 1, ms + 25, (@"Serialize\" + Stj, ms), (Invoke, 25))).ToList();
        var row = Assert.Single(ByRun(b, t).Rows);
        var e = row.Explained.Single(x => x.Metric == RowDiff.DurationMs);
        Assert.Equal(25.0 / 15.0, e.FactoredOutShare!.Value, 6);
        Assert.Equal(-10, e.Remainder.Delta!.Value, 6);
        Assert.Equal("explained by factored-out tags (they exceed Δ)", DiffReport.Verdict(row, e));
    }

    [Fact]
    public void Pooled_launches_keep_every_run_and_say_when_they_are_not_one_configuration()
    {
        var (b, t) = Switched();
        var one = Side("emit-1") with { Warnings = ["lost 3 events"] };
        var two = Side("emit-2", new() { ["XmlSerializer"] = "fails" });
        var pooled = DiffSideReader.Pool([one, two]);
        Assert.Equal(["emit-1", "emit-2"], pooled.Launches);
        Assert.Equal("emit-1 + emit-2", pooled.Path);
        Assert.Equal("fails", pooled.Unsupported["xmlserializer"]);
        Assert.Equal(["emit-1: lost 3 events"], pooled.Warnings);
        Assert.Same(one, DiffSideReader.Pool([one]));

        // Second launch's runs carry the same keys as the first's: rows match by (serializer, operation, objects),
        // each launch one sample of the row.
        var diff = TraceDiffer.CompareLaunches(pooled, [b, b], Reflection, [t]);
        var row = Assert.Single(diff.Rows);
        Assert.Equal(8, row.Metric(RowDiff.DurationMs).Baseline!.Runs);
        Assert.Equal(2, row.Metric(RowDiff.DurationMs).BaselineLaunches!.Runs);
        Assert.Equal(b.Average(r => r.DurationMs), row.Metric(RowDiff.DurationMs).Baseline!.Mean, 9);
        Assert.Contains("(2 launches, each one sample)", DiffReport.Render(diff, TableFormat.Text), StringComparison.Ordinal);
        // A side's runs come as one list per launch it names.
        Assert.Throws<ArgumentException>(() => TraceDiffer.Compute(pooled, b, Reflection, t));

        var otherRuntime = DiffSideReader.Pool([one, new DiffSide("emit-3", ".NET 9.0", ["env DOTNET_TieredCompilation=0"], new Dictionary<string, string>(), [])]);
        Assert.Contains(otherRuntime.Warnings, w => w.StartsWith("launches differ in runtime: emit-1 ran .NET 10.0, emit-3 ran .NET 9.0", StringComparison.Ordinal));
        Assert.Contains(otherRuntime.Warnings, w => w.StartsWith("launches differ in configuration:", StringComparison.Ordinal));
        Assert.Throws<ArgumentException>(() => DiffSideReader.Pool([]));
    }

    /// <summary>
    /// The CPU table says once what both sides' CPU means, and says "not comparable" only where they differ: pooled
    /// launches with a kernel sampler in some and EventPipe's in others are "mixed", which matches another mixed side.
    /// </summary>
    [Fact]
    public void The_cpu_source_is_said_once_where_both_sides_mean_the_same()
    {
        DiffSide With(string path, CpuSourceKind kind) => Side(path) with { CpuSource = kind };
        string Cpu(DiffSide baseline, DiffSide trace)
        {
            var text = DiffReport.Render(TraceDiffer.CompareLaunches(baseline, [.. baseline.Launches.Select(_ => new[] { Run(Stj, "serialize", 0, 10) })],
                trace, [.. trace.Launches.Select(_ => new[] { Run(Stj, "serialize", 0, 20) })]), TableFormat.Text);
            return text.Split('\n').Single(l => l.StartsWith("CPU, ms per operation", StringComparison.Ordinal));
        }
        var kernel = With("k", CpuSourceKind.Perf);
        var eventPipe = With("e", CpuSourceKind.EventPipe);
        Assert.Contains("(CPU = on-CPU time of the worker, kernel samples, what the tags split", Cpu(kernel, With("w", CpuSourceKind.EtwProfile)), StringComparison.Ordinal);
        Assert.Contains("not comparable", Cpu(kernel, eventPipe), StringComparison.Ordinal);

        var mixed = DiffSideReader.Pool([kernel, eventPipe]);
        Assert.Null(mixed.CpuSource);
        Assert.Equal("mixed", mixed.CpuSourceName);
        Assert.Contains("(CPU = kernel samples in some launches, EventPipe's in others, what the tags split", Cpu(mixed, DiffSideReader.Pool([eventPipe, kernel])), StringComparison.Ordinal);
        Assert.Contains("not comparable", Cpu(mixed, kernel), StringComparison.Ordinal);
        Assert.Equal("mixed", JsonDocument.Parse(DiffReport.Render(TraceDiffer.CompareLaunches(mixed, [new[] { Run(Stj, "serialize", 0, 10) }, new[] { Run(Stj, "serialize", 0, 11) }], kernel, [new[] { Run(Stj, "serialize", 0, 20) }]), TableFormat.Json))
            .RootElement.GetProperty("baseline").GetProperty("cpuSource").GetString());
    }

    /// <summary>A run no CPU source covers (a kernel session cut short): CpuKnown false, CpuMs and tags 0 by default.</summary>
    private static RunAnalysis Uncovered(string serializer, string operation, int run, double durationMs)
    {
        var r = new RunDraft { Key = new RunKey(serializer, operation, 1000, run), StartMs = 100 * run, EndMs = 100 * run + durationMs, CpuKnown = false };
        return r.Freeze();
    }

    [Fact]
    public void A_run_no_CPU_source_covers_is_missing_from_the_CPU_columns_not_0()
    {
        // Baseline: 4 runs of 20 ms CPU. Trace: 2 covered runs of 20 ms and 2 the kernel session never reached
        // (their CpuMs is 0 in the model). Counted as 0 they would make a -10 ms (-50%) CPU change out of nothing.
        List<RunAnalysis> b = [.. Enumerable.Range(1, 4).Select(i => Run(Stj, "serialize", i, 21, (@"Serialize" + Stj, 19.5 + 0.25 * i)))];
        List<RunAnalysis> t = [Run(Stj, "serialize", 1, 21, (@"Serialize" + Stj, 19.75)), Run(Stj, "serialize", 2, 21, (@"Serialize" + Stj, 20.0)),
            Uncovered(Stj, "serialize", 3, 21), Uncovered(Stj, "serialize", 4, 21)];
        var row = Assert.Single(TraceDiffer.Compute(Emit, b, Reflection, t).Rows);
        var cpu = row.Metric(RowDiff.CpuMs);
        Assert.Equal(4, cpu.Baseline!.Runs);
        Assert.Equal(2, cpu.Trace!.Runs); // the covered runs only
        Assert.Equal(19.875, cpu.Trace.Mean, 6);
        Assert.InRange(cpu.Delta!.Value, -0.5, 0.5);
        Assert.InRange(Assert.Single(row.Tags).Delta!.Value, -0.5, 0.5);
        // Duration has no CPU source to miss: every run counts.
        Assert.Equal(4, row.Metric(RowDiff.DurationMs).Trace!.Runs);
        Assert.All(row.Explained, e => Assert.InRange(e.Delta, -0.5, 0.5));

        // A side no CPU source covers at all: its CPU is -, never 0, in every format, and nothing is split into tags.
        List<RunAnalysis> none = [.. Enumerable.Range(1, 4).Select(i => Uncovered(Stj, "serialize", i, 21))];
        var diff = TraceDiffer.Compute(Emit, b, Reflection, none);
        var only = Assert.Single(diff.Rows);
        Assert.Null(only.Metric(RowDiff.CpuMs).Trace);
        Assert.Null(only.Metric(RowDiff.CpuMs).Delta);
        Assert.Empty(only.Explained);
        var text = DiffReport.Render(diff, TableFormat.Text);
        var cpuRow = text.Split('\n').SkipWhile(l => !l.Contains("CPU, ms per operation", StringComparison.Ordinal)).FirstOrDefault(l => l.StartsWith(Stj, StringComparison.Ordinal));
        Assert.True(cpuRow is not null, text);
        var cells = cpuRow.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal("-", cells[5]); // Trace CPU
        Assert.DoesNotContain("0.000", cells[5..8]);
        using var json = JsonDocument.Parse(DiffReport.Render(diff, TableFormat.Json));
        var metric = json.RootElement.GetProperty("rows")[0].GetProperty("metrics").GetProperty(RowDiff.CpuMs);
        Assert.Equal(JsonValueKind.Null, metric.GetProperty("trace").ValueKind);
    }
}
