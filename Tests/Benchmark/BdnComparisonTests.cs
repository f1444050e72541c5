using System.Globalization;
using System.Text.Json;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Benchmark;

/// <summary>
/// The BenchmarkDotNet cross-check (scripts/measure/BdnComparison, scripts/measure/bdn-compare.sh): the smoke test runs the
/// script as a user does, on one serializer with a short in-process job, and checks what can really break: BDN finds
/// the serializer and measures the iterations asked for, the benchmark measures runs, and the table reads both files.
/// No timing is asserted: the two sides measure differently (docs/benchmark.md) and the machine is shared.
/// </summary>
[EndToEnd]
public sealed class BdnComparisonTests
{
    // Built by the solution (Tests.csproj references it for build order only); same configuration as the tests.
    private static readonly string BdnComparisonDll = Path.Combine(Repo.Root, "scripts", "measure", "BdnComparison", "bin",
        new DirectoryInfo(Repo.BinDir).Parent!.Name, "net10.0", "BdnComparison.dll");

    private static readonly string Script = Path.Combine(Repo.Root, "scripts", "measure", "bdn-compare.sh");

    [Fact]
    public void The_script_measures_one_serializer_with_BenchmarkDotNet_and_the_benchmark_and_tables_both()
    {
        var dir = Repo.NewTempDir("bdn");
        var table = Path.Combine(dir, "table.md");
        var result = ProcessRunner.Run("bash", [Script, "--no-build", "--launches", "1", "--inprocess",
            "--serializers", "Google.Protobuf", "--test", "deserialize", "--n", "1000",
            "--bdn", "--warmup-count 1 --iteration-count 3 --iteration-time-ms 25", "--keep", dir, "--out", table, "--", "--runs", "3"]);
        Assert.True(result.ExitCode == 0, result.StdErr + result.StdOut);

        // BenchmarkDotNet found the serializer, ran the one case asked for, and measured the iterations the job fixed.
        using var bdn = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(dir, "bdn-1.json")));
        Assert.Equal("InProcessEmit", bdn.RootElement.GetProperty("toolchain").GetString());
        Assert.Empty(bdn.RootElement.GetProperty("errors").EnumerateArray());
        var c = Assert.Single(bdn.RootElement.GetProperty("cases").EnumerateArray());
        Assert.Equal(("Google.Protobuf", "deserialize", "BookShelf", 1000),
            (c.GetProperty("serializer").GetString(), c.GetProperty("operation").GetString(), c.GetProperty("data").GetString(), c.GetProperty("objects").GetInt32()));
        Assert.Equal(1, c.GetProperty("warmupIterations").GetInt32());
        Assert.Equal(3, c.GetProperty("measuredIterations").GetInt32());
        Assert.True(c.GetProperty("operationsPerIteration").GetInt64() >= 1);
        var iterations = c.GetProperty("resultMs").EnumerateArray().Select(v => v.GetDouble()).ToList();
        Assert.InRange(iterations.Count, 1, 3); // upper outliers may be dropped
        Assert.All(iterations, v => Assert.True(v > 0));
        var bdnMean = c.GetProperty("meanMs").GetDouble();
        Assert.Equal(iterations.Average(), bdnMean, tolerance: 1e-9 * bdnMean); // summation order differs in the last bits
        Assert.InRange(bdnMean, c.GetProperty("minMs").GetDouble(), c.GetProperty("maxMs").GetDouble());

        // The benchmark measured the same case, untraced.
        var runs = BenchmarkResults.Load(Path.Combine(dir, "bench-1.json")).Runs.Where(r => !r.Warmup).ToList();
        Assert.NotEmpty(runs);
        Assert.All(runs, r => Assert.True(r is { Serializer: "Google.Protobuf", Operation: "deserialize", Data: "BookShelf", Objects: 1000, DurationMs: > 0 }));
        var benchMean = runs.Average(r => r.DurationPerOperationMs);

        // The table's row carries both sides as the files say (both means recomputed here, independently).
        var text = File.ReadAllText(table);
        Assert.Contains("load average", text, StringComparison.Ordinal);
        var row = Row(text, "Google.Protobuf");
        Assert.Equal(["deserialize", "BookShelf", "1000"], row[1..4]);
        AssertRounded(bdnMean, row[4]);
        AssertRounded(iterations.Min(), row[5]);
        Assert.Equal($"1 x {iterations.Count}", row[8]);
        AssertRounded(benchMean, row[9]);
        AssertRounded(runs.Min(r => r.DurationPerOperationMs), row[10]);
        Assert.Equal($"1 x {runs.Count}", row[13]);
        Assert.Equal(benchMean / bdnMean, Number(row[14].TrimEnd('x')), 0.0051);
        Directory.Delete(dir, recursive: true);
    }

    [Fact]
    public void The_table_pools_launches_and_takes_only_the_runs_the_benchmark_marks_measured()
    {
        var dir = Repo.NewTempDir("bdn-table");
        var bdn1 = WriteBdn(dir, "b1.json", [1.0, 2.0, 3.0]);
        var bdn2 = WriteBdn(dir, "b2.json", [3.0, 5.0]); // a launch that lost an outlier
        var bench = Path.Combine(dir, "r.json");
        new BenchmarkResults
        {
            Runtime = ".NET test", OperatingSystem = "test", Configuration = "Release", DebuggerAttached = false, ProcessId = 1,
            StartTimeUtc = DateTime.UnixEpoch, CommandLine = "--n 10 --json /somewhere/r.json",
            Runs =
            [
                Run(0, warmup: true, 100.0), Run(1, warmup: false, 4.0),
                Run(2, warmup: false, 18.0) with { Operations = 3 }, // 6 ms per operation: the table compares calls
                Run(3, warmup: false, 50.0) with { Threads = 3 }, // concurrent runs measure something else
            ],
        }.Save(bench);

        var result = ProcessRunner.Dotnet(BdnComparisonDll, "table", "--bdn", bdn1, "--bdn", bdn2, "--benchmark", bench);
        Assert.True(result.ExitCode == 0, result.StdErr);
        var row = Row(result.StdOut, "Google.Protobuf");
        Assert.Equal(["2.80", "1.00", "2.00-4.00", "53%", "2 x 2.5 (5)"], row[4..9]); // pooled mean 14/5, launch means 2 and 4, CV 1.48/2.8
        Assert.Equal(["5.00", "4.00", "5.00-5.00", "28%", "1 x 2", "1.79x"], row[9..15]);
        Assert.Contains("command: --n 10.", result.StdOut, StringComparison.Ordinal); // the per-launch --json path is left out
        Directory.Delete(dir, recursive: true);
    }

    [Fact]
    public void Bad_table_input_is_a_one_line_error_with_the_documented_exit_code()
    {
        var dir = Repo.NewTempDir("bdn-bad");
        var missing = ProcessRunner.Dotnet(BdnComparisonDll, "table", "--bdn", Path.Combine(dir, "nope.json"));
        Assert.Equal(ExitCodes.Usage, missing.ExitCode);
        Assert.Contains("no such file", Assert.Single(missing.StdErr.Trim().Split('\n')), StringComparison.Ordinal);

        var corrupt = Path.Combine(dir, "corrupt.json");
        File.WriteAllText(corrupt, "{ not json");
        var bad = ProcessRunner.Dotnet(BdnComparisonDll, "table", "--benchmark", corrupt);
        Assert.Equal(ExitCodes.BadInput, bad.ExitCode);
        Assert.Contains("not a benchmark results.json", Assert.Single(bad.StdErr.Trim().Split('\n')), StringComparison.Ordinal);

        var unknown = ProcessRunner.Dotnet(BdnComparisonDll, "run", "--json", corrupt, "--serializers", "nope");
        Assert.Equal(ExitCodes.Usage, unknown.ExitCode);
        Assert.Contains("unknown serializer 'nope'", unknown.StdErr, StringComparison.Ordinal);
        Directory.Delete(dir, recursive: true);
    }

    private static string WriteBdn(string dir, string name, double[] resultMs)
    {
        var path = Path.Combine(dir, name);
        File.WriteAllText(path, JsonSerializer.Serialize(new
        {
            benchmarkDotNetVersion = "0.14.0", runtime = ".NET test", toolchain = "InProcessEmit", job = "test",
            cases = new[]
            {
                new
                {
                    serializer = "Google.Protobuf", operation = "deserialize", data = "BookShelf", objects = 10,
                    meanMs = resultMs.Average(), medianMs = 0.0, minMs = resultMs.Min(), maxMs = resultMs.Max(), stdDevMs = 0.0,
                    operationsPerIteration = 16, warmupIterations = 6, measuredIterations = 3, resultMs,
                },
            },
            errors = Array.Empty<string>(),
        }));
        return path;
    }

    private static RunResult Run(int run, bool warmup, double ms) => new()
    {
        Serializer = "Google.Protobuf", Operation = "deserialize", Data = "BookShelf", Objects = 10, Run = run, Warmup = warmup,
        DurationMs = ms, GcCount = GcCounts.Zero, GcPauseMs = 0, AllocatedBytes = 0,
    };

    /// <summary>The cells of the table row whose first cell is the serializer.</summary>
    private static string[] Row(string markdown, string serializer)
    {
        var line = markdown.Split('\n').Single(l => l.StartsWith($"| {serializer} |", StringComparison.Ordinal));
        return line.Trim().Trim('|').Split('|').Select(s => s.Trim()).ToArray();
    }

    private static double Number(string cell) => double.Parse(cell, NumberStyles.Float, CultureInfo.InvariantCulture);

    /// <summary>The table prints 3 significant digits or more; this is the rounding it may have applied.</summary>
    private static void AssertRounded(double expected, string cell) =>
        Assert.True(Math.Abs(Number(cell) - expected) <= 0.0005 + expected * 0.005, $"cell {cell} vs {expected}");
}
