using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.Findings;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Recorder.Profiles;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// The tracing-cost measurement read against known answers: injected work, and the sampler measured apart. These
/// time the benchmark, so they run alone (<see cref="TimingCollection"/>): beside another test class on this 2-core
/// machine, a clean-clone CI run read 5% and 20% injections with intervals 37 to 64 points wide.
/// </summary>
[EndToEnd]
[Collection(TimingCollection.Name)]
public sealed class TracingCostMeasurementTests : IDisposable
{
    private readonly string _dir = Repo.NewTempDir("tracing-cost-measurement");

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }

    /// <summary>
    /// A known cost: --inject-traced-work 0.5 makes every traced operation spin for half the latest untraced block's
    /// median CPU time, so the CPU estimate must read what was spun (<see cref="InjectedBand"/>) plus tracing's own CPU. On this 2-core machine at load average 15-24 single
    /// runs of the same case differed 30x by the Stopwatch, much less by the thread CPU clock. So the bound follows from
    /// the estimate's interval, not a fixed band.
    /// </summary>
    [Fact]
    public void Injected_work_in_traced_blocks_is_reported()
    {
        // 6 runs a block (36 a side): with 2, a clean-clone CI run with both cores busy read +92.6% (+38.6 to +199.2).
        var rec = ScenarioRecording.Record(Path.Combine(_dir, "injected"), "--test", "deserialize", "--n", "50", "--runs", "2",
            "--serializers", "XmlSerializer", "--tracing-cost", "--tracing-cost-runs", "6", "--inject-traced-work", "0.5",
            // A 4 MiB gen0 budget (gen0-small in scripts/test-machines.sh) read +27.9% (+24.3 to +40.2): pinned.
            "--env", RecordedBenchmark.PinnedGen0);
        var results = Recording.Results(rec.Folder);
        var cost = TracingCostEstimate.From(results)[("XmlSerializer", "deserialize", 50)].Cpu!;
        // The answer is what the blocks spun over the untraced fast end, plus tracing's own cost: "50%" of a baseline
        // that moves between blocks is not one figure (with both cores busy the untraced blocks' medians lay at 0.045
        // and 0.065 ms: +91.4%, +75.2 to +100.8, against a fixed 45-65 band).
        var (spunLow, spunHigh) = InjectedBand(Assert.Single(results.TracingCost!, c => c.Serializer == "XmlSerializer"), 0.5);
        var (low, high) = (spunLow + OwnCostLow, spunHigh + OwnCostHigh);
        var said = $"{cost.Describe()} against {low:F1} to {high:F1}";
        // Six block pairs: the median's interval runs about from the lowest pair to the highest, so one pair spoiled by
        // other work widens it (a CI run with a core kept busy: +48.6%, -2.6 to +108.9). The bound follows from the
        // interval: it must meet the answer, and only a narrow one must hold its point near it.
        Assert.True(cost.LowPercent < high && cost.HighPercent > low, said);
        if (cost.HighPercent - cost.LowPercent < NoisyWidth)
            Assert.True(Off(cost.Percent, low, high) <= NoisyWidth / 2, $"a narrow interval off the answer: {said}");
        // The JSON carries the thread CPU clock's figure with its interval, beside the Stopwatch's.
        var json = Assert.Single(AnalysisReport.Json(rec.Analysis)["serializers"]!.AsArray(), s => (string?)s!["serializer"] == "XmlSerializer")!;
        Assert.Equal(cost.Percent, (double)json["tracingCostCpuPercent"]!);
        Assert.Equal([cost.LowPercent, cost.HighPercent], json["tracingCostCpuCi"]!.AsArray().Select(v => (double)v!));
        // So does the text's column, after the Stopwatch's figure.
        var table = Assert.Single(AnalysisReport.OperationTables(rec.Analysis));
        var cell = Assert.Single(table.Rows)[table.Columns.ToList().IndexOf("Tracing cost")];
        // Then, with the kernel session, the tracer's own threads in the process (issue 57).
        Assert.Contains("; CPU " + cost.Describe(), cell, StringComparison.Ordinal);
        Assert.Matches(@"; CPU [^;]+(; tracer threads [\d.]+ ms per call)?$", cell);
        // The terminal's table reads the thread CPU clock's figure alone (the Stopwatch's moves with other work).
        var compact = AnalysisReport.CompactTables(rec.Analysis, Verdicts.Of(rec.Analysis)).First();
        var compactCell = Assert.Single(compact.Rows)[compact.Columns.ToList().IndexOf("Tracing")];
        var estimate = rec.Analysis.TracingCost.Values.Single();
        Assert.Equal(cost.Percent, estimate.Headline.Percent);
        Assert.Equal(estimate.DescribeHeadline(), compactCell);
        // Measured, so the notes do not say it was not (the golden recordings, made without it, say so).
        Assert.DoesNotContain(AnalysisReport.TraceNotes(rec.Analysis), n => n.StartsWith("Tracing cost per case: not measured", StringComparison.Ordinal));
    }

    /// <summary>
    /// The measurement itself, to a point. --tracing-cost-sham leaves tracing off in the traced blocks, so the sides
    /// differ only by the injected work: 5% or 20% (the i-th serializer gets the i-th share) of the median thread CPU
    /// per operation of the latest untraced block. Read at the fast end, that is a little more than the share: the
    /// answer is the band <see cref="InjectedBand"/> computes from the runs. Measured, 10 recordings of these 4 cases
    /// (load average 1-2, 2026-11-26, thread CPU): 34 of 40 readings within 1 point of the nominal share, at most 3.5
    /// off, every interval (give or take a point) holding it. A run beside other users' work (load about 4) read
    /// protobuf-net 20% as +22.4% (+21.4 to +31.1): its blocks' medians lay above their fast end. So: the interval
    /// (give or take a point) meets the band, a case with an interval under 10 points wide reads within its width of
    /// it (or within a point), and a case read further off is one whose interval says the machine was too noisy to tell. With
    /// tracing on, its own cost adds to the injected work and moves between launches (docs/recorder.md, "How to read
    /// the column").
    /// </summary>
    [Fact]
    public void A_known_cost_reads_to_a_point()
    {
        var shares = new Dictionary<string, double> { ["MessagePack"] = 0.05, ["System.Text.Json"] = 0.20, ["Google.Protobuf"] = 0.05, ["protobuf-net"] = 0.20 };
        var rec = ScenarioRecording.Record(Path.Combine(_dir, "sham"), "--test", "serialize", "--n", "10000", "--runs", "1",
            "--serializers", string.Join(',', shares.Keys), "--tracing-cost", "--tracing-cost-runs", "10", "--tracing-cost-sham",
            "--inject-traced-work", string.Join(',', shares.Values.Select(v => v.ToString(System.Globalization.CultureInfo.InvariantCulture))));
        var results = Recording.Results(rec.Folder);
        Assert.True(results.TracingCostSham, "results.json says the blocks were a sham");
        Assert.Null(results.TracingCostProblem);
        Assert.Contains(rec.Analysis.Warnings, w => w.StartsWith("tracing cost: a sham", StringComparison.Ordinal));
        Assert.DoesNotContain(rec.Analysis.Findings, f => f.Kind == FindingKinds.TracingCost);
        var costs = TracingCostEstimate.From(results);
        var read = shares.Select(s =>
        {
            var blocks = Assert.Single(results.TracingCost!, c => c.Serializer == s.Key);
            var (low, high) = InjectedBand(blocks, s.Value);
            return (s.Key, Low: low, High: high, Cost: costs[(s.Key, "serialize", 10_000)].Cpu!);
        }).ToList();
        var all = string.Join("; ", read.Select(r => $"{r.Key} {r.Low:F1}-{r.High:F1}%: {r.Cost.Describe()}"));
        // Four 95% intervals all hold their answer in 81% of recordings, even where they are right: one may miss, by
        // less than its own width (the busy condition of scripts/test-machines.sh read MessagePack 5% as -19.7%,
        // -23.7 to +0.9, the other three holding theirs).
        var misses = read.Where(r => r.Low > r.Cost.HighPercent + 1 || r.High < r.Cost.LowPercent - 1).ToList();
        Assert.True(misses.Count <= 1, $"{misses.Count} intervals miss the answer: {all}");
        Assert.All(misses, r => Assert.True(Math.Max(r.Low - r.Cost.HighPercent, r.Cost.LowPercent - r.High) < r.Cost.HighPercent - r.Cost.LowPercent,
            $"{r.Key}'s interval misses the answer by more than its width: {all}"));
        // Precision where the interval claims it: a case whose interval is narrower than 10 points reads within its
        // width of the answer. Quiet, 34 of 40 readings were within a point; clean-clone CI runs read System.Text.Json
        // 20% as +16.5% (+12.8 to +22.4, 3.7 points off) and as +26.5% (+20.0 to +29.4, 4.9 off), MessagePack 5% as
        // +6.8% (+2.3 to +8.4): near, not to a point. A 95% interval holds the answer anywhere in it, not in its middle
        // half, so a half-width rule failed where the intervals were honest; so did "more than a point off needs an
        // interval 2 points wide" (a CI run with a core kept busy: System.Text.Json 20% as +18.7%, +18.1 to +19.7).
        // The interval is the bootstrap's alone: the band's own error is not in it, so the rule allows the quiet spread
        // (a CI run read protobuf-net 20.0-20.2% as +20.7%, +20.5 to +20.9: 0.5 off, 0.4 wide; another both 5% cases
        // about a point high: MessagePack 5.0-5.2% as +6.3%, +6.1 to +6.5, and Google.Protobuf as +6.0%).
        var told = read.Where(r => r.Cost.HighPercent - r.Cost.LowPercent < NoisyWidth).ToList();
        Assert.All(told, r => Assert.True(Off(r.Cost.Percent, r.Low, r.High) <= Math.Max(r.Cost.HighPercent - r.Cost.LowPercent, QuietSpread),
            $"{r.Key} read further off than its narrow interval is wide, and more than {QuietSpread} points: {all}"));
    }

    /// <summary>
    /// The injected work as a share of the untraced runs' fast end, in percent: each traced block spins the share
    /// times the median of the latest kept untraced block before it (Benchmark's TracingCostBlocks), so the fast ends
    /// differ by between the smallest and the largest of those, over the untraced 10th percentile.
    /// </summary>
    private static (double Low, double High) InjectedBand(TracingCostCase blocks, double share)
    {
        var runs = blocks.RunsPerBlock!.Value;
        var untracedBlocks = blocks.UntracedCpuMs.Chunk(runs).ToList();
        var spun = new List<double>();
        var untracedSeen = -1;
        for (var b = TracingCostHandshake.SettlingBlocks; b < TracingCostHandshake.Blocks.Count; b++)
        {
            if (!TracingCostHandshake.Blocks[b]) untracedSeen++;
            else if (untracedSeen >= 0) spun.Add(share * untracedBlocks[untracedSeen].Order().ElementAt(runs / 2));
        }
        var sorted = blocks.UntracedCpuMs.Order().ToList();
        var at = 0.1 * (sorted.Count - 1);
        var fastEnd = sorted[(int)at] + (sorted[Math.Min((int)at + 1, sorted.Count - 1)] - sorted[(int)at]) * (at - (int)at);
        return (100 * spun.Min() / fastEnd, 100 * spun.Max() / fastEnd);
    }

    /// <summary>Points between a reading and a band (0 inside it).</summary>
    private static double Off(double percent, double low, double high) => Math.Max(0, Math.Max(low - percent, percent - high));

    /// <summary>
    /// Tracing's own cost where only the sampler runs: a profile with perf's CPU samples (every 1 ms, with stacks) and
    /// the run events, nothing else. The sampler's cost was measured apart, at ten times the rate: every 0.1 ms the same
    /// cases read +20.4% (median of 4, thread CPU, 2026-11-26), so 2.0% at 1 ms if it is linear; the recording at 1 ms
    /// read +2.4% (docs/recorder.md, "The sampler alone"). On a virtual machine the profile samples every 2 ms, so 1.0%.
    /// Each case's interval, give or take a case's own spread (<see cref="CaseBelow"/>, <see cref="CaseAbove"/>), holds
    /// it, all but one at most, and a case read a point beyond that spread has an interval at least 2 points wide.
    /// </summary>
    [Fact]
    public void A_case_with_nothing_but_the_sampler_costs_what_the_sampler_costs()
    {
        var file = ScratchProfile.Write(_dir, "sampler-only", sampler =>
        {
            var providers = sampler["providers"]!.AsArray();
            foreach (var other in providers.Where(p => (string?)p!["name"] != "EtwSerializerProfiler-Runs").ToList()) providers.Remove(other);
            sampler["kernel"]!["keywords"] = new JsonArray("Process", "Thread", "ImageLoad", "Profile");
            sampler["kernel"]!["stacks"] = new JsonArray("Profile");
            sampler["kernel"]!["perfStacks"] = new JsonArray("Profile");
        });

        string[] serializers = ["MessagePack", "System.Text.Json", "Google.Protobuf", "protobuf-net"];
        var rec = ScenarioRecording.Record(Path.Combine(_dir, "sampler"), "--test", "serialize", "--n", "10000", "--runs", "1",
            "--serializers", string.Join(',', serializers), "--tracing-cost", "--tracing-cost-runs", "10", "--profiles", file, "--profile", "sampler-only");
        Assert.Equal(["EtwSerializerProfiler-Runs"], TraceManifest.Load(rec.Folder.Manifest).Providers.Select(p => p.Name));
        var costs = TracingCostEstimate.From(Recording.Results(rec.Folder));
        var read = serializers.Select(s => (Name: s, Cost: costs[(s, "serialize", 10_000)].Cpu!)).ToList();
        var all = string.Join("; ", read.Select(r => $"{r.Name}: {r.Cost.Describe()}"));
        // Every 2 ms on a virtual machine (CpuSampling): half the samples, half the cost.
        var expected = SamplerPercent / CpuSampling.Resolve(ProfileCatalog.Get("sampler-only", file), null, Hypervisor.Present()).Profile.CpuSamplingMs;
        // An interval misses its answer now and then by chance (a clean-clone run with both cores busy: Google.Protobuf
        // +5.2%, +2.6 to +22.6, the other three holding 1.0%): of four, at most one may.
        var missed = read.Where(r => expected < r.Cost.LowPercent - CaseAbove || expected > r.Cost.HighPercent + CaseBelow).ToList();
        Assert.True(missed.Count <= 1, $"{missed.Count} intervals miss the sampler's {expected:F1}%: {all}");
        // The 1.0% is the four cases' median: each case's own cost is known to about a point (at 2 ms, cases read +0.6
        // to +2.1, docs/recorder.md; a CI run read MessagePack +2.0%, +1.0 to +2.9). So a case read more than 2 points
        // off says the machine was too noisy to tell: its interval is wide. Seen beside the unit tests with a core kept
        // busy: -0.6% (-6.4 to +2.7), -2.3% (-13.8 to +20.6).
        Assert.All(read, r => Assert.True((r.Cost.Percent >= expected - CaseBelow - 1 && r.Cost.Percent <= expected + CaseAbove + 1) || r.Cost.HighPercent - r.Cost.LowPercent >= 2,
            $"{r.Name} read off with a narrow interval: {all}"));
    }

    /// <summary>An interval this wide (points) says the machine was too noisy to read a case to a point.</summary>
    private const double NoisyWidth = 10;

    /// <summary>How far (points) a reading strays from its band on a quiet machine, beyond its interval: 1.1 seen in CI.</summary>
    private const double QuietSpread = 1.5;

    /// <summary>
    /// Tracing's own CPU on top of an injection: +5.8% by the Stopwatch without injection, up to +15% on a busy
    /// machine; four recordings without injection read +1.4, +14.4, -23.5 and +13.0% (the last three's intervals held 0).
    /// </summary>
    private const double OwnCostLow = -5, OwnCostHigh = 15;

    /// <summary>How far below the expected cost one case's sampler cost lies (points): measured at 2 ms, +0.6 to +2.1 about +1.0.</summary>
    private const double CaseBelow = 1;

    /// <summary>
    /// How far above (points). Each sample costs more when the host slows its guests: clean-clone CI runs read
    /// protobuf-net +2.5% (+2.0 to +3.2) and Google.Protobuf +3.1% (+1.9 to +3.6), the other cases near 1.0%.
    /// </summary>
    private const double CaseAbove = 2.5;

    /// <summary>The sampler's cost at 1 ms, measured apart (docs/recorder.md, "The sampler alone").</summary>
    private const double SamplerPercent = 2.0;
}
