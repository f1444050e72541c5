using System.Text.Json;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// Traces of an app that is not the benchmark (Tests/Workloads/SampleApp: JSON work, 2,000 exceptions, threads
/// waiting for one lock), recorded with the tools users have: `esp record -- dotnet app.dll` and dotnet-trace with
/// its defaults and GC profiles. No runs: the whole trace is analyzed per thread and held to what the app counted.
/// </summary>
[EndToEnd]
public sealed class WholeTraceTests(ITestOutputHelper output) : IDisposable
{
    private readonly string _dir = Repo.NewTempDir("whole");

    public void Dispose()
    {
        try { Directory.Delete(_dir, recursive: true); } catch (IOException) { }
    }

    public static string SampleAppDll => Path.Combine(Repo.BinDir.Replace(Path.Combine("Tests", "bin"), Path.Combine("Tests", "Workloads", "SampleApp", "bin"), StringComparison.Ordinal), "SampleApp.dll");

    private sealed record SampleTruth(int ExceptionsThrown, long LockContentions, int Gen0, int Gen1, int Gen2, int JsonRoundTrips);

    private static SampleTruth Truth(string path) => JsonSerializer.Deserialize<SampleTruth>(File.ReadAllText(path))!;

    private static TraceAnalysis Analyze(string trace)
    {
        using var input = TraceInput.Open(trace);
        return new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
    }

    private static void AssertProcessGcs(TraceAnalysis analysis, SampleTruth truth)
    {
        var p = analysis.Process;
        Assert.True((p.Gen0, p.Gen1, p.Gen2) == (truth.Gen0, truth.Gen1, truth.Gen2), $"GCs: trace {p.Gen0}/{p.Gen1}/{p.Gen2}, app {truth.Gen0}/{truth.Gen1}/{truth.Gen2}");
    }

    [Fact]
    public async Task A_users_app_recorded_by_esp_is_analyzed_whole_and_agrees_with_what_it_counted()
    {
        var truthPath = Path.Combine(_dir, "truth.json");
        var (exit, folder, _) = await Recording.RecordAsync(Path.Combine(_dir, "trace"), ["--", "dotnet", SampleAppDll, "--truth", truthPath]);
        Assert.Equal(0, exit);
        var truth = Truth(truthPath);
        var analysis = Analyze(folder.Path);

        Assert.Empty(analysis.Runs);
        Assert.Contains(analysis.Warnings, w => w.StartsWith("no benchmark runs", StringComparison.Ordinal));
        Assert.Equal(truth.ExceptionsThrown, analysis.Threads.Sum(t => t.Counters.Exceptions));
        Assert.Equal(truth.LockContentions, analysis.Threads.Sum(t => t.Counters.Contentions));
        AssertProcessGcs(analysis, truth);
        // The serializer-library tags find System.Text.Json in an app that is not the benchmark; the kernel session
        // names the app's threads.
        Assert.Equal(CpuSourceKind.Perf, analysis.Trace.CpuSource);
        var main = analysis.Threads.First();
        Assert.True(main.Tags.GetValueOrDefault("Serializer library\\System.Text.Json") > 0.1 * main.CpuMs, string.Join(", ", main.Tags.Select(t => $"{t.Key} {t.Value:F1}")));
        Assert.Contains(analysis.Threads, t => t.Name == "Lock worker" && t.Counters.ContentionMs > 0);
        Assert.Contains(analysis.Threads.SelectMany(t => t.Counters.AllocatedBytesByType.Keys), k => k.EndsWith("Order", StringComparison.Ordinal));

        // The CLI: exit 0 (a trace without runs is a result), the whole-trace tables, flame graphs per busy thread.
        var flames = Path.Combine(_dir, "flames");
        var cli = ProcessRunner.Dotnet(Path.Combine(Repo.BinDir, "esp.dll"), "analyze", folder.Path, "--speedscope", flames, "--html", Path.Combine(_dir, "r.html"));
        output.WriteLine(cli.StdOut);
        Assert.True(cli.ExitCode == 0, cli.StdErr);
        Assert.Contains("Whole trace, per thread", cli.StdOut, StringComparison.Ordinal);
        Assert.NotEmpty(Directory.GetFiles(flames, "*.speedscope.json"));
        Assert.Contains("Whole trace, per thread", File.ReadAllText(Path.Combine(_dir, "r.html")), StringComparison.Ordinal);
    }

    [Fact]
    public void Traces_dotnet_trace_records_with_its_defaults_and_its_gc_profiles_are_analyzed_whole()
    {
        var dotnetTrace = DotnetTraceTool.Path(output);
        foreach (var profile in new[] { "", "gc-verbose", "gc-collect" })
        {
            var name = profile.Length == 0 ? "default" : profile;
            var trace = Path.Combine(_dir, name + ".nettrace");
            var truthPath = Path.Combine(_dir, name + ".json");
            string[] args = ["collect", "-o", trace, .. (profile.Length == 0 ? Array.Empty<string>() : ["--profile", profile]), "--", "dotnet", SampleAppDll, "--truth", truthPath];
            var r = ProcessRunner.Run(dotnetTrace, args);
            Assert.True(r.ExitCode == 0, $"dotnet-trace {string.Join(' ', args)}: {r.StdOut} {r.StdErr}");
            var truth = Truth(truthPath);
            var analysis = Analyze(trace);
            output.WriteLine($"{name}: {analysis.Threads.Count} threads, {analysis.Threads.Sum(t => t.Samples)} samples, {analysis.Threads.Sum(t => t.Counters.Exceptions)} exceptions, GCs {analysis.Process.GcCount.Total}; {string.Join(" | ", analysis.Warnings)}");
            Assert.Empty(analysis.Runs);
            AssertProcessGcs(analysis, truth);
            switch (name)
            {
                case "default": // CPU samples and exceptions are in dotnet-trace's default; allocation ticks and contention are not, and the analysis says so
                    Assert.Equal(truth.ExceptionsThrown, analysis.Threads.Sum(t => t.Counters.Exceptions));
                    Assert.Contains(analysis.Threads, t => t.Tags.GetValueOrDefault("Serializer library\\System.Text.Json") > 0);
                    Assert.Contains(analysis.Warnings, w => w.Contains("allocation ticks", StringComparison.Ordinal) && w.Contains("lock contention", StringComparison.Ordinal));
                    break;
                case "gc-verbose":
                    Assert.True(analysis.Threads.Sum(t => t.Counters.AllocatedBytes) > 1_000_000);
                    break;
            }
            var cli = ProcessRunner.Dotnet(Path.Combine(Repo.BinDir, "esp.dll"), "analyze", trace);
            Assert.True(cli.ExitCode == 0, $"{name}: esp analyze exited {cli.ExitCode}: {cli.StdErr}");
        }
    }
}
