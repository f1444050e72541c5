using System.Text.Json;
using EtwSerializerProfiler.Analyzer.Diff;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Tests.Analyzer.Diff;

/// <summary>
/// The launch is the unit of a comparison (issue 42): one launch on a side is never judged significant, several are
/// compared by Welch's test on their means, and no share is printed over a Δ that is within noise or tiny.
/// </summary>
public sealed class LaunchUnitTests
{
    private const string Stj = "System.Text.Json";
    private const string Own = @"Deserialize\System.Text.Json";
    private const string Invoke = @"Reflection\Interpreted invoke";

    private static DiffSide Side(string path, int launches) =>
        new DiffSide(path, ".NET 10.0", [], new Dictionary<string, string>(), []) { Launches = [.. Enumerable.Range(1, launches).Select(i => $"{path}-{i}")] };

    private static RunAnalysis Run(int run, double ownMs, double invokeMs = 0)
    {
        var r = new RunDraft { Key = new RunKey(Stj, "deserialize", 1000, run), StartMs = 100 * run, EndMs = 100 * run + ownMs + invokeMs };
        r.TagTable[Own] = ownMs;
        if (invokeMs != 0) r.TagTable[Invoke] = invokeMs;
        r.CpuMs = ownMs + invokeMs;
        return r.Freeze();
    }

    /// <summary>One launch: <paramref name="runs"/> runs at <paramref name="ms"/>, spread ±<paramref name="jitter"/>.</summary>
    private static RunAnalysis[] Launch(double ms, int runs = 5, double jitter = 0.05, double invokeMs = 0) =>
        [.. Enumerable.Range(1, runs).Select(i => Run(i, ms + (i % 2 == 0 ? jitter : -jitter) * (i % 3 + 1), invokeMs))];

    private static TraceDiff Compare(IReadOnlyList<RunAnalysis[]> baseline, IReadOnlyList<RunAnalysis[]> trace) =>
        TraceDiffer.CompareLaunches(Side("a", baseline.Count), baseline, Side("b", trace.Count), trace);

    private static IEnumerable<MetricDiff> Every(TraceDiff diff) =>
        diff.Rows.SelectMany(r => r.Metrics.Concat(r.Tags).Concat(r.Explained.Select(e => e.Remainder)));

    [Fact]
    public void One_launch_per_side_is_never_significant_however_far_apart_its_runs_are()
    {
        // 20 → 60 ms with runs within ±0.2 ms: Welch on runs says p < 1e-10, but two processes can differ this much.
        foreach (var (before, after) in new[] { (20.0, 60.0), (20.0, 24.0), (20.0, 20.01), (20.0, 5.0) })
        {
            var diff = Compare([Launch(before)], [Launch(after)]);
            Assert.All(Every(diff), m => Assert.Null(m.Noise.Significant));
            Assert.All(Every(diff), m => Assert.Equal(NoiseVerdict.OneLaunch, m.Noise.Reason));
            var text = DiffReport.Render(diff, TableFormat.Text);
            Assert.DoesNotContain("sig p", text, StringComparison.Ordinal);
            Assert.Contains("one launch on each side: differences under 70% in CPU (150% in duration) can be launch noise", text, StringComparison.Ordinal);
            var json = JsonDocument.Parse(DiffReport.Render(diff, TableFormat.Json)).RootElement;
            var duration = json.GetProperty("rows")[0].GetProperty("metrics").GetProperty(RowDiff.DurationMs);
            Assert.Equal(JsonValueKind.Null, duration.GetProperty("noise").GetProperty("significant").ValueKind);
        }

        // What one launch can say: Δ against the runs' spread, and against the launch noise measured on the build VM.
        var far = Compare([Launch(20)], [Launch(60)]);
        var d = far.Rows[0].Metric(RowDiff.DurationMs);
        Assert.True(d.RunNoise.Significant);
        Assert.Equal("> launch noise", DiffReport.Noise(d, far.Settings)); // +200% against duration's 150%
        Assert.Equal("> launch noise", DiffReport.Noise(far.Rows[0].Metric(RowDiff.CpuMs), far.Settings));
        var between = Compare([Launch(20)], [Launch(40)]).Rows[0];
        Assert.Equal("launch noise?", DiffReport.Noise(between.Metric(RowDiff.DurationMs), far.Settings)); // +100%: under 150%
        Assert.Equal("> launch noise", DiffReport.Noise(between.Metric(RowDiff.CpuMs), far.Settings));     // +100%: over 70%
        var near = Compare([Launch(20)], [Launch(24)]).Rows[0].Metric(RowDiff.DurationMs);
        Assert.True(near.RunNoise.Significant);
        Assert.Equal("launch noise?", DiffReport.Noise(near, far.Settings));
        var same = Compare([Launch(20, jitter: 2)], [Launch(20.01, jitter: 2)]).Rows[0].Metric(RowDiff.DurationMs);
        Assert.False(same.RunNoise.Significant);
        Assert.Equal("within runs", DiffReport.Noise(same, far.Settings));

        // Several launches on one side and one on the other: still one process on that side, still not judged.
        var mixed = Compare([Launch(20), Launch(21), Launch(19)], [Launch(50)]);
        Assert.All(Every(mixed), m => Assert.Null(m.Noise.Significant));
        Assert.Contains("one launch on the trace side", DiffReport.Render(mixed, TableFormat.Text), StringComparison.Ordinal);
    }

    [Fact]
    public void Several_launches_are_compared_by_welch_on_their_means_not_on_the_pooled_runs()
    {
        // Each launch's runs are tight (±0.1 ms) but the launches sit 1 ms apart: the pooled runs look like 15 tight
        // samples and call a 2 ms shift highly significant; three launch means per side cannot.
        RunAnalysis[][] baseline = [Launch(10), Launch(11), Launch(12)];
        RunAnalysis[][] trace = [Launch(12), Launch(13), Launch(14)];
        var d = Assert.Single(Compare(baseline, trace).Rows).Metric(RowDiff.DurationMs);

        var expected = WelchTest.Compare(
            SampleStats.Of([.. baseline.Select(l => l.Average(r => r.DurationMs))]),
            SampleStats.Of([.. trace.Select(l => l.Average(r => r.DurationMs))]), 0.05);
        Assert.Equal(expected.PValue!.Value, d.Noise.PValue!.Value, 12);
        Assert.Equal(expected.CiLow!.Value, d.Noise.CiLow!.Value, 12);
        Assert.Equal(expected.CiHigh!.Value, d.Noise.CiHigh!.Value, 12);
        Assert.Equal(expected.DegreesOfFreedom!.Value, d.Noise.DegreesOfFreedom!.Value, 12);
        Assert.False(d.Noise.Significant);
        Assert.True(d.RunNoise.Significant);
        Assert.True(d.RunNoise.PValue < 1e-6);
        Assert.Equal(3, d.BaselineLaunches!.Runs);
        Assert.Equal(15, d.Baseline!.Runs);
        Assert.Equal(2.0, d.Delta!.Value, 9);

        // A shift that every launch shows is significant on three launch means.
        var clear = Assert.Single(Compare([Launch(10), Launch(10.4), Launch(9.8)], [Launch(20), Launch(20.5), Launch(19.7)]).Rows).Metric(RowDiff.DurationMs);
        Assert.True(clear.Noise.Significant);
    }

    [Fact]
    public void Each_launch_weighs_the_same_whatever_its_number_of_runs()
    {
        // 10 runs at 10 ms and 2 at 20 ms: the pooled runs' mean is 11.7, the launches' mean 15.
        var d = Assert.Single(Compare([Launch(10, runs: 10, jitter: 0), Launch(20, runs: 2, jitter: 0)], [Launch(15, jitter: 0), Launch(15, jitter: 0)]).Rows)
            .Metric(RowDiff.DurationMs);
        Assert.Equal(15, d.Baseline!.Mean, 9);
        Assert.Equal(12, d.Baseline.Runs);
        Assert.Equal(0, d.Delta!.Value, 9);
    }

    [Fact]
    public void A_tag_that_changes_beyond_launch_noise_is_shown_even_when_the_total_does_not_move()
    {
        // Reflection replaces emitted code that ran under the serializer's own tag: +5 ms there, −5 ms here.
        var baseline = new[] { 20.0, 23.0, 17.0 }.Select(ms => Launch(ms)).ToArray();
        var trace = new[] { 16.0, 13.0, 19.0 }.Select((ms, i) => Launch(ms, invokeMs: 5 + 0.1 * i)).ToArray();
        var diff = Compare(baseline, trace);
        var row = Assert.Single(diff.Rows);
        Assert.False(row.Metric(RowDiff.CpuMs).Noise.Significant);
        Assert.True(row.Tags.Single(t => t.Name == Invoke).Noise.Significant);

        var text = DiffReport.Render(diff, TableFormat.Text);
        var table = text[text.IndexOf("Stack tags that changed", StringComparison.Ordinal)..].Split("\n\n")[0];
        var line = table.Split('\n').Single(l => l.Contains(Invoke, StringComparison.Ordinal));
        Assert.Contains("sig p", line, StringComparison.Ordinal);
        Assert.Contains("noise p", line, StringComparison.Ordinal); // the row's total, beside it
    }

    [Fact]
    public void No_share_is_printed_over_a_delta_within_noise_or_tiny()
    {
        // The .NET 8 vs 10 case: Δ +0.03 ms on 20 ms, the factored-out tags −0.92 ms: "share" would read −3000%.
        var baseline = new[] { 20.0, 20.5, 19.5 }.Select(ms => Launch(ms, invokeMs: 1)).ToArray();
        var trace = new[] { 20.95, 21.45, 20.45 }.Select(ms => Launch(ms, invokeMs: 0.08)).ToArray();
        var diff = Compare(baseline, trace);
        var e = Assert.Single(diff.Rows).Explained.Single(x => x.Metric == RowDiff.DurationMs);
        Assert.True(Math.Abs(e.Delta) < 0.1);
        Assert.Null(e.FactoredOutShare);
        Assert.Equal(ExplainedDiff.TinyDelta, e.NoShareReason);
        var json = JsonDocument.Parse(DiffReport.Render(diff, TableFormat.Json)).RootElement.GetProperty("rows")[0].GetProperty("explained").GetProperty(RowDiff.DurationMs);
        Assert.Equal(JsonValueKind.Null, json.GetProperty("factoredOutShare").ValueKind);
        Assert.Equal(ExplainedDiff.TinyDelta, json.GetProperty("noShareReason").GetString());
        // The Share cell of the explained view's duration line is "-", and the legend says why.
        var explained = DiffReport.Render(diff, TableFormat.Markdown).Split('\n')
            .Single(l => l.StartsWith("| " + Stj, StringComparison.Ordinal) && l.Contains("| duration |", StringComparison.Ordinal));
        Assert.Equal("-", explained.Split('|')[7].Trim());
        Assert.Contains("a ratio over a near-zero Δ means nothing", DiffReport.Render(diff, TableFormat.Text), StringComparison.Ordinal);

        // Larger than the tolerance but within launch noise: no share either.
        var noisy = Compare(new[] { 20.0, 30.0, 10.0 }.Select(ms => Launch(ms, invokeMs: 1)).ToArray(), new[] { 28.0, 18.0, 38.0 }.Select(ms => Launch(ms, invokeMs: 4)).ToArray());
        var n = Assert.Single(noisy.Rows).Explained.Single(x => x.Metric == RowDiff.DurationMs);
        Assert.False(Assert.Single(noisy.Rows).Metric(RowDiff.DurationMs).Noise.Significant);
        Assert.Null(n.FactoredOutShare);
        Assert.Equal(ExplainedDiff.DeltaWithinNoise, n.NoShareReason);

        // A significant Δ well beyond the tolerance keeps its share.
        var real = Compare(new[] { 20.0, 20.3, 19.8 }.Select(ms => Launch(ms)).ToArray(), new[] { 20.0, 20.3, 19.8 }.Select(ms => Launch(ms, invokeMs: 10)).ToArray());
        var r = Assert.Single(real.Rows).Explained.Single(x => x.Metric == RowDiff.DurationMs);
        Assert.Null(r.NoShareReason);
        Assert.Equal(1.0, r.FactoredOutShare!.Value, 6);
    }
}
