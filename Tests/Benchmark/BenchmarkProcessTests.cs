using EtwSerializerProfiler.Benchmark.Serializers;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Benchmark;

/// <summary>The benchmark as a user runs it: a real process, real output files.</summary>
[EndToEnd]
public sealed class BenchmarkProcessTests
{
    [Fact]
    public void A_quick_run_measures_every_supported_serializer_and_lists_the_unsupported_with_a_reason()
    {
        var dir = Repo.NewTempDir("bench");
        var json = Path.Combine(dir, "r.json");
        var csv = Path.Combine(dir, "r.csv");
        // One warm-up and one measured run of one call each: the plumbing, quickly (the automatic warm-up is SteadyStateRunTests').
        var result = ProcessRunner.Dotnet(Repo.BenchmarkDll, "--n", "10,200", "--warmup", "1", "--runs", "1", "--ops", "1", "--json", json, "--csv", csv, "--quiet");
        Assert.True(result.ExitCode == 0, result.StdErr + result.StdOut);
        var results = BenchmarkResults.Load(json);
        var supported = SerializerCatalog.All.Where(s => s.UnsupportedReason is null).Select(s => s.Name).ToHashSet();
        Assert.Equal(supported, results.Runs.Select(r => r.Serializer).ToHashSet());
        Assert.Equal(supported.Count * 2 /*N*/ * 2 /*ops*/ * 2 /*runs*/, results.Runs.Count);
        Assert.Contains(results.Unsupported, u => u.Serializer == "BinaryFormatter" && u.Reason.Contains("PlatformNotSupportedException", StringComparison.Ordinal));
        Assert.All(results.Runs, r => Assert.StartsWith("ok", r.Verification, StringComparison.Ordinal));
        Assert.All(results.Runs, r => Assert.True(r.DurationMs > 0 && r.SizeBytes > 0 && r.MarkerThreadId > 0 && r.WorkerThreadId > 0));
        Assert.All(results.Runs, r => Assert.Equal((r.Run == 0, 1), (r.Warmup, r.Operations)));
        var cases = supported.Count * 2 * 2;
        Assert.Equal(cases, results.Warmups!.Count);
        Assert.All(results.Warmups, w => Assert.Equal(("fixed", 1, 1, 1), (w.Policy, w.WarmupRuns, w.MeasuredRuns, w.Operations)));
        // On .NET the JIT's counters (JitInfo) are always there: every run carries them, as counts (null only on .NET Framework).
        Assert.All(results.Runs, r => Assert.True(r.CompiledMethods is >= 0 && r.CompilationMs is >= 0, "JitInfo counts every run on .NET"));
        Assert.Equal("Release", results.Configuration);
        // --quiet (what esp record --analyze passes): no table, one line naming what did not run.
        Assert.DoesNotContain("Mean ms", result.StdOut, StringComparison.Ordinal);
        Assert.Contains("not run: BinaryFormatter (why: ", result.StdOut, StringComparison.Ordinal);
        Assert.Equal(results.Runs.Count + 1, File.ReadAllLines(csv).Length);
        Directory.Delete(dir, recursive: true);
    }

    [Fact]
    public void An_unknown_serializer_exits_2_with_one_line()
    {
        var result = ProcessRunner.Dotnet(Repo.BenchmarkDll, "--serializers", "nope");
        Assert.Equal(ExitCodes.Usage, result.ExitCode);
        Assert.Contains("unknown serializer 'nope'", result.StdErr, StringComparison.Ordinal);
        Assert.Single(result.StdErr.Trim().Split('\n'));
    }

    [Fact]
    public void Concurrent_deserialization_and_firstcall_modes_produce_results()
    {
        var dir = Repo.NewTempDir("modes");
        var json = Path.Combine(dir, "t.json");
        var threads = ProcessRunner.Dotnet(Repo.BenchmarkDll, "--test", "deserialize", "--threads", "3", "--n", "500", "--warmup", "3", "--runs", "2", "--serializers", "DataContract", "--json", json, "--quiet");
        Assert.True(threads.ExitCode == 0, threads.StdErr);
        var concurrent = BenchmarkResults.Load(json).Runs;
        Assert.All(concurrent, r => Assert.Equal(3, r.Threads));
        // The pilot sized the measured runs from the warm-up: every thread repeats the call that many times per run.
        Assert.Single(concurrent.Where(r => !r.Warmup).Select(r => r.Operations).Distinct());
        Assert.Equal(concurrent.Last().Operations, BenchmarkResults.Load(json).Warmups!.Single().Operations);

        var first = ProcessRunner.Dotnet(Repo.BenchmarkDll, "--test", "firstcall", "--n", "10", "--serializers", "XmlSerializer,System.Text.Json.SourceGen", "--json", json, "--quiet");
        Assert.True(first.ExitCode == 0, first.StdErr);
        var runs = BenchmarkResults.Load(json).Runs;
        Assert.Equal(["System.Text.Json.SourceGen", "XmlSerializer"], runs.Select(r => r.Serializer).Order());
        Assert.All(runs, r => Assert.Equal("firstcall", r.Operation));
        // A first call includes code generation: XmlSerializer's is far slower than a warm call.
        Assert.True(runs.Single(r => r.Serializer == "XmlSerializer").DurationMs > 5);
        Directory.Delete(dir, recursive: true);
    }
}
