using System.Globalization;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Diff;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// Four real launches of one configuration, for A/A diffs: nothing differs between them but the process, so any
/// "significant" verdict is a false positive. Small, for CI; scripts/measure/aa-diff.sh measures the rate at size.
/// </summary>
public sealed class AaRecordings : IDisposable
{
    public static readonly string[] Serializers = ["Google.Protobuf", "System.Text.Json", "Newtonsoft.Json"];
    public const int Launches = 4;
    public const int Objects = 1_000;

    private readonly string _dir = Repo.NewTempDir("aa-diff");

    public IReadOnlyList<TraceFolder> Folders { get; }
    public IReadOnlyList<(DiffSide Side, IReadOnlyList<RunAnalysis> Runs)> Analyzed { get; }

    public AaRecordings()
    {
        // One warm-up run, then five measured runs of about 20 ms each (--ops auto): the same command every time.
        string[] args = ["--test", "deserialize", "--n", Objects.ToString(CultureInfo.InvariantCulture), "--warmup", "1", "--runs", "5",
            "--serializers", string.Join(",", Serializers), "--quiet"];
        var folders = new List<TraceFolder>();
        for (var launch = 1; launch <= Launches; launch++)
        {
            var (exit, folder) = Recording.Record(Path.Combine(_dir, $"a-{launch}"), args);
            if (exit != 0) throw new InvalidOperationException($"recording {launch} exited with {exit}");
            folders.Add(folder);
        }
        Folders = folders;
        var options = new AnalyzerOptions();
        Analyzed = [.. folders.Select(f =>
        {
            using var input = TraceInput.Open(f.Path);
            var analysis = new TraceAnalyzer(options).Analyze(input);
            return (DiffSideReader.From(analysis, input.ManifestPath, options), analysis.Runs);
        })];
    }

    /// <summary>The launches at <paramref name="baseline"/> against those at <paramref name="trace"/> (0-based).</summary>
    public TraceDiff Diff(int[] baseline, int[] trace) => TraceDiffer.CompareLaunches(
        DiffSideReader.Pool([.. baseline.Select(i => Analyzed[i].Side)]), [.. baseline.Select(i => Analyzed[i].Runs)],
        DiffSideReader.Pool([.. trace.Select(i => Analyzed[i].Side)]), [.. trace.Select(i => Analyzed[i].Runs)]);

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }
}

[CollectionDefinition(Name)]
public sealed class AaRecordingsCollection : ICollectionFixture<AaRecordings>
{
    public const string Name = "A/A recordings";
}

[EndToEnd]
[Collection(AaRecordingsCollection.Name)]
public sealed class AaDiffTests(AaRecordings recorded, Xunit.Abstractions.ITestOutputHelper output)
{
    private static string Esp => Path.Combine(Repo.BinDir, "esp.dll");

    private static List<MetricDiff> Verdicts(TraceDiff diff) =>
        [.. diff.Rows.Where(r => r.Presence == Presence.Both).SelectMany(r => r.Metrics.Concat(r.Tags).Concat(r.Explained.Select(e => e.Remainder)))];

    [Fact]
    public void The_same_configuration_recorded_twice_is_never_significant_with_one_launch_per_side()
    {
        foreach (var (a, b) in new[] { (0, 1), (2, 3), (1, 2) })
        {
            var diff = recorded.Diff([a], [b]);
            Assert.Equal(AaRecordings.Serializers.Length, diff.Rows.Count(r => r.Presence == Presence.Both));
            var verdicts = Verdicts(diff);
            // What the runs' test says about the same pair: the verdict esp diff printed before the launch was the unit.
            var duration = diff.Rows.Select(r => r.Metric(RowDiff.DurationMs)).ToList();
            output.WriteLine($"launch {a + 1} vs {b + 1}: " + string.Join(", ", diff.Rows.Select(r => r.Metric(RowDiff.DurationMs))
                .Zip(diff.Rows, (m, r) => $"{r.Serializer} {m.RelativeDelta:+0%;-0%} (runs p={m.RunNoise.PValue:F3})")) +
                $"; runs test significant in {verdicts.Count(m => m.RunNoise.Significant == true)} of {verdicts.Count}");
            Assert.All(verdicts, m => Assert.Null(m.Noise.Significant));
            Assert.All(verdicts, m => Assert.Equal(NoiseVerdict.OneLaunch, m.Noise.Reason));
        }

        var text = ProcessRunner.Dotnet(Esp, "diff", recorded.Folders[0].Path, recorded.Folders[1].Path);
        Assert.True(text.ExitCode == 0, text.StdErr);
        Assert.DoesNotContain(" sig p", text.StdOut, StringComparison.Ordinal);
        Assert.DoesNotContain("significant)", text.StdOut, StringComparison.Ordinal);
        Assert.Contains("one launch on each side: differences under", text.StdOut, StringComparison.Ordinal);
    }

    [Fact]
    public void Two_launches_per_side_of_the_same_configuration_are_rarely_significant()
    {
        // Welch on two launch means per side: at α = 0.05 about 1 test in 20 is a false positive when its assumptions
        // hold. The bound is loose (a quarter) because 2 launches are few and the tests of one row are correlated;
        // Welch on the pooled runs, the old verdict, flagged A/A pairs at far higher rates (docs/analyzer.md).
        // The rate over the three ways to split four launches in two: when two launches run slow together (a busy
        // neighbour), the one split that puts both on a side finds nearly every figure significant (24 of 51 once),
        // the other two split them. One split alone is one sample of the rate.
        int significant = 0, total = 0;
        foreach (var (baseline, trace) in new (int[], int[])[] { ([0, 2], [1, 3]), ([0, 1], [2, 3]), ([0, 3], [1, 2]) })
        {
            var verdicts = Verdicts(recorded.Diff(baseline, trace));
            var split = verdicts.Count(m => m.Noise.Significant == true);
            output.WriteLine($"{string.Join(",", baseline)} vs {string.Join(",", trace)}: launch test significant in {split} of {verdicts.Count}, runs test in {verdicts.Count(m => m.RunNoise.Significant == true)}");
            Assert.All(verdicts, m => Assert.NotEqual(NoiseVerdict.OneLaunch, m.Noise.Reason));
            significant += split;
            total += verdicts.Count;
        }
        Assert.True(significant <= total / 4, $"{significant} of {total} verdicts significant over the three A/A splits");
        var text = ProcessRunner.Dotnet(Esp, "diff", recorded.Folders[0].Path, recorded.Folders[2].Path, "vs", recorded.Folders[1].Path, recorded.Folders[3].Path);
        Assert.True(text.ExitCode == 0, text.StdErr);
        Assert.Contains("Welch's t-test on the launches' means (2 launch(es) in the baseline, 2 in the trace", text.StdOut, StringComparison.Ordinal);
    }
}
