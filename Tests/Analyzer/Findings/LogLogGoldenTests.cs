using EtwSerializerProfiler.Analyzer.Findings;
using EtwSerializerProfiler.Analyzer.Findings.Detectors;
using EtwSerializerProfiler.Analyzer.Model;
using static EtwSerializerProfiler.Tests.Analyzer.Findings.SyntheticRuns;

namespace EtwSerializerProfiler.Tests.Analyzer.Findings;

/// <summary>
/// The super-linear finding's exponent is unchanged on real measurements: the slopes the hand-written least-squares
/// fit gave before MathNet.Numerics replaced it. The figures are every measured run of one real benchmark process
/// on the 2-core build VM (busy), as results.json has them:
///   DOTNET_TieredCompilation=0 SerializerBenchmark --test deserialize --n 20k,60k,180k --runs 4 --serializers ObjectGraph,Google.Protobuf,System.Text.Json
/// Tolerance 1e-9 relative, as for the diff's goldens (DiffGoldenTests); the slope is printed to two decimals, and
/// MathNet's Fit.Line gave these slopes to the last bit.
/// </summary>
public sealed class LogLogGoldenTests
{
    // serializer, N, run, worker CPU ms (single-threaded), duration ms, GC pause ms
    private static readonly (string Serializer, int N, int Run, double CpuMs, double DurationMs, double GcPauseMs)[] s_runs =
    [
        ("ObjectGraph", 20000, 1, 34.3565, 52.2114, 32.358),
        ("ObjectGraph", 20000, 2, 13.6751, 13.6499, 0),
        ("ObjectGraph", 20000, 3, 25.6826, 33.7843, 11.679),
        ("ObjectGraph", 60000, 1, 73.1081, 266.0295, 65.255),
        ("ObjectGraph", 60000, 2, 41.6501, 117.8236, 87.77),
        ("ObjectGraph", 60000, 3, 63.8472, 155.7321, 43.977),
        ("ObjectGraph", 180000, 1, 848.7642, 1671.9184, 154.5),
        ("ObjectGraph", 180000, 2, 748.0469, 1779.6841, 184.17),
        ("ObjectGraph", 180000, 3, 776.9741, 2343.578, 221.254),
        ("Google.Protobuf", 20000, 1, 23.3487, 62.7227, 29.192),
        ("Google.Protobuf", 20000, 2, 8.776, 36.3526, 0),
        ("Google.Protobuf", 20000, 3, 8.4021, 21.0789, 0),
        ("Google.Protobuf", 60000, 1, 25.4171, 76.3396, 16.54),
        ("Google.Protobuf", 60000, 2, 67.7749, 162.6321, 127.865),
        ("Google.Protobuf", 60000, 3, 14.3575, 26.3617, 20.025),
        ("Google.Protobuf", 180000, 1, 101.0845, 241.5688, 20.715),
        ("Google.Protobuf", 180000, 2, 82.216, 115.7666, 70.358),
        ("Google.Protobuf", 180000, 3, 103.7927, 193.8416, 109.724),
        ("System.Text.Json", 20000, 1, 14.1609, 19.4404, 7.972),
        ("System.Text.Json", 20000, 2, 7.9241, 7.7452, 0),
        ("System.Text.Json", 20000, 3, 10.0416, 15.0012, 0),
        ("System.Text.Json", 60000, 1, 29.9686, 61.2344, 25.724),
        ("System.Text.Json", 60000, 2, 42.0018, 71.5871, 2.845),
        ("System.Text.Json", 60000, 3, 55.4557, 120.3261, 51.871),
        ("System.Text.Json", 180000, 1, 138.7575, 233.8366, 19.898),
        ("System.Text.Json", 180000, 2, 112.4043, 176.6324, 78.739),
        ("System.Text.Json", 180000, 3, 142.3946, 307.2218, 150.853),
    ];

    private const double Tolerance = 1e-9;

    [Theory]
    [InlineData("ObjectGraph", 1.8213381813249678, 2.07262369308695)]
    [InlineData("Google.Protobuf", 1.0380678785613628, 0.5296710235956461)]
    [InlineData("System.Text.Json", 1.2070652548067413, 1.1843709056292373)]
    public void Slopes_of_cheapest_cpu_and_of_all_wall_clock_runs_match_their_goldens(string serializer, double cheapestCpuSlope, double allRunsSlope)
    {
        var runs = s_runs.Where(r => r.Serializer == serializer).ToList();
        // What the detector fits: the cheapest CPU time per N.
        var cheapest = LogLogFit.Slope([.. runs.GroupBy(r => r.N).Select(g => ((double)g.Key, g.Min(r => r.CpuMs)))]);
        // Every run's wall clock minus GC pauses: nine points, with noise, unlike the exact power laws of the unit tests.
        var all = LogLogFit.Slope([.. runs.Select(r => ((double)r.N, r.DurationMs - r.GcPauseMs))]);
        AssertClose(cheapestCpuSlope, cheapest!.Value, serializer + " cheapest CPU slope");
        AssertClose(allRunsSlope, all!.Value, serializer + " all-runs slope");
    }

    [Fact]
    public void The_detector_flags_only_ObjectGraph_with_the_golden_slope()
    {
        var analysisRuns = s_runs.Select(r => Run(r.Serializer, "deserialize", r.N, r.Run, r.DurationMs, set: a =>
        {
            a.GcPauseMs = r.GcPauseMs;
            a.InProcess = InProcess(a, r.CpuMs);
        }));
        var finding = Assert.Single(Detect(new SuperLinearScalingDetector(), analysisRuns));
        Assert.Equal("ObjectGraph", finding.Serializer);
        AssertClose(1.8213381813249678, finding.Evidence.Single(e => e.Key == "slope").Value, "ObjectGraph finding slope");
    }

    private static void AssertClose(double expected, double actual, string what) =>
        Assert.True(Math.Abs(actual - expected) <= Tolerance * Math.Max(Math.Abs(expected), Math.Abs(actual)),
            $"{what}: {actual:R}, golden {expected:R}");
}
