using System.Text.Json;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
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
        FileCleanup.TryDeleteDirectory(_dir);
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
        // Every thread that waited is named, the ones without a CPU sample too (their switches name them).
        var waited = analysis.Threads.Where(t => t.Counters.Contentions > 0).ToList();
        Assert.True(waited.Count > 0 && waited.All(t => t.Name == "Lock worker" && t.Counters.ContentionMs > 0),
            string.Join("; ", analysis.Threads.Select(t => $"{t.ThreadId} '{t.Name}' {t.Counters.Contentions} waits {t.Counters.ContentionMs:F1} ms, {t.Samples} samples")));
        Assert.Contains(analysis.Threads.SelectMany(t => t.Counters.AllocatedBytesByType.Keys), k => k.EndsWith("Order", StringComparison.Ordinal));

        // The CLI: exit 0 (a trace without runs is a result), the whole-trace tables, flame graphs per busy thread.
        var flames = Path.Combine(_dir, "flames");
        var cli = ProcessRunner.Dotnet(Path.Combine(Repo.BinDir, "esp.dll"), "analyze", folder.Path, "--speedscope", flames, "--html", Path.Combine(_dir, "r.html"));
        output.WriteLine(cli.StdOut);
        Assert.True(cli.ExitCode == 0, cli.StdErr);
        Assert.Contains("Whole trace, per thread", cli.StdOut, StringComparison.Ordinal);
        Assert.NotEmpty(Directory.GetFiles(flames, "*.speedscope.json"));
        Assert.True(File.Exists(Path.Combine(flames, RunStackCollector.SpeedscopeFileName(RunStackCollector.AllThreads, RunStackCollector.WholeTraceOperation, 0))));
        Assert.Contains("Whole trace, per thread", File.ReadAllText(Path.Combine(_dir, "r.html")), StringComparison.Ordinal);
    }

    private sealed record LibraryTruth(double PricingMs, double RoutingMs, int Rounds, int ExceptionsThrown, long LockContentions);

    /// <summary>
    /// An app with two libraries (the namespaces Pricing and Routing, 2:1) that times each call with its thread CPU
    /// clock, recorded by `esp record -- dotnet app.dll` with the default profile (contention and exceptions enabled;
    /// the app has neither). Without runs: CPU by namespace within 5 points of the app's clocks, --top lists both
    /// libraries' methods, and the warnings say "enabled, none happened", not "no events".
    /// </summary>
    [Fact]
    public async Task Two_libraries_of_known_shares_are_found_by_namespace_and_in_the_hot_methods_without_runs()
    {
        var truthPath = Path.Combine(_dir, "libraries.json");
        var (exit, folder, _) = await Recording.RecordAsync(Path.Combine(_dir, "libraries"), ["--", "dotnet", SampleAppDll, "--libraries", "900", "--truth", truthPath]);
        Assert.Equal(0, exit);
        var truth = JsonSerializer.Deserialize<LibraryTruth>(File.ReadAllText(truthPath))!;
        using var input = TraceInput.Open(folder.Path);
        var analysis = new TraceAnalyzer(new AnalyzerOptions { CollectHotMethods = true, KeepChargedSamples = true }).Analyze(input);
        var p = analysis.Process;
        output.WriteLine($"truth: pricing {truth.PricingMs:F1} ms, routing {truth.RoutingMs:F1} ms; trace: {p.CpuMs:F1} ms in all");
        foreach (var n in p.Namespaces.Take(8)) output.WriteLine($"  {n.Name}: {n.InclusiveMs:F1} inclusive, {n.ExclusiveMs:F1} exclusive");

        Assert.Empty(analysis.Runs);
        Assert.Equal(CpuSourceKind.Perf, analysis.Trace.CpuSource);
        Assert.Equal(p.CpuMs, analysis.Threads.Sum(t => t.CpuMs), 6);
        // The exclusive columns split the CPU: each sample's leaf once.
        Assert.Equal(p.CpuMs, p.Modules.Sum(m => m.ExclusiveMs), 6);
        Assert.Equal(p.CpuMs, p.Namespaces.Sum(m => m.ExclusiveMs), 6);
        var byName = p.Namespaces.ToDictionary(n => n.Name);
        var steal = ThreadClockBounds.StealMs(folder.Path);
        foreach (var (library, clockMs) in new[] { ("Pricing", truth.PricingMs), ("Routing", truth.RoutingMs) })
        {
            var traceMs = byName["EtwSerializerProfiler.Workloads." + library].InclusiveMs;
            // Above the clock, also by the steal the recording measured (ThreadClockBounds).
            var points = 100 * Math.Abs(traceMs - clockMs) / p.CpuMs;
            Assert.True(points <= 5 + 100 * ThreadClockBounds.Stolen(traceMs, clockMs, steal) / p.CpuMs, $"{library}: {traceMs:F1} ms in the trace, {clockMs:F1} ms by the app's thread clock: {points:F1} points of {p.CpuMs:F1} ms apart (steal {steal:F0} ms)");
        }
        // Most of the CPU is the two libraries, which no stack tag knows: the module says where it went, not Other.
        Assert.True(p.Modules[0] is { Name: "SampleApp" } app && app.InclusiveMs > 0.5 * p.CpuMs, string.Join(", ", p.Modules.Take(3)));

        // --top over the whole trace: both libraries' methods, from the same weights as the threads' CPU.
        var hot = p.HotMethods!;
        var top = hot.OrderByDescending(m => m.Value.ExclusiveMs).Take(10).Select(m => m.Key).ToList();
        Assert.Contains(top, m => m.Contains(".Pricing.PriceBook.", StringComparison.Ordinal));
        Assert.Contains(top, m => m.Contains(".Routing.RoutePlanner.", StringComparison.Ordinal));
        var quote = hot["SampleApp!EtwSerializerProfiler.Workloads.Pricing.PriceBook.Quote"];
        // The namespace holds the method and more: frame-pointer unwinding skips Quote when Discount is sampled in its
        // prologue (measured: Quote 535 ms inclusive, its namespace 603 ms, Discount 567 ms), so no closer bound.
        Assert.True(quote.InclusiveMs > 0.5 * truth.PricingMs && quote.InclusiveMs <= byName["EtwSerializerProfiler.Workloads.Pricing"].InclusiveMs + 1e-6, $"Quote {quote.InclusiveMs:F1} ms inclusive");
        // The call tree of all threads: the same samples and weights, so the same total and the same time under Quote.
        var tree = Assert.Single(RunStackCollector.Collect(analysis).Profiles, t => t.Serializer == RunStackCollector.AllThreads).Tree;
        Assert.Equal(p.CpuMs, tree.TotalMs, 6);
        Assert.Equal(quote.InclusiveMs, Under(tree.Root, "SampleApp!EtwSerializerProfiler.Workloads.Pricing.PriceBook.Quote"), 6);
        // No sample is exclusive in two rows (the native split is a breakdown under its row): the rows sum to at most the CPU.
        Assert.DoesNotContain(hot.Keys, k => k.Contains("called from", StringComparison.Ordinal));
        Assert.True(hot.Sum(m => m.Value.ExclusiveMs) <= p.CpuMs * 1.000001);

        // Contention and exceptions: enabled by the default profile (the manifest says so), and the app had none.
        Assert.Equal((0, 0L), (truth.ExceptionsThrown, truth.LockContentions));
        var none = Assert.Single(analysis.Warnings, w => w.StartsWith("enabled, none happened", StringComparison.Ordinal));
        Assert.Contains("lock contention", none, StringComparison.Ordinal);
        Assert.Contains("exceptions", none, StringComparison.Ordinal);
        Assert.DoesNotContain(analysis.Warnings, w => w.Contains("no events for", StringComparison.Ordinal) && w.Contains("contention", StringComparison.Ordinal));

        // The CLI: the library tables and the whole trace's --top table.
        var cli = ProcessRunner.Dotnet(Path.Combine(Repo.BinDir, "esp.dll"), "analyze", folder.Path, "--top", "10");
        output.WriteLine(cli.StdOut);
        Assert.True(cli.ExitCode == 0, cli.StdErr);
        Assert.Contains("Whole trace, on-CPU by namespace", cli.StdOut, StringComparison.Ordinal);
        Assert.Contains("Whole trace, on-CPU by module", cli.StdOut, StringComparison.Ordinal);
        Assert.Contains("Whole trace: top 10 methods by exclusive on-CPU time", cli.StdOut, StringComparison.Ordinal);
        Assert.Contains("SampleApp!EtwSerializerProfiler.Workloads.Routing.RoutePlanner.Relax", cli.StdOut, StringComparison.Ordinal);
        Assert.Contains("warning: enabled, none happened", cli.StdOut, StringComparison.Ordinal);
    }

    /// <summary>A call tree's time under the outermost nodes of one method (recursion counted once).</summary>
    private static double Under(CallTreeNode node, string method) =>
        node.Name == method ? node.InclusiveMs : node.Children.Sum(c => Under(c, method));

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
                    Assert.Contains(analysis.Warnings, w => w.Contains("allocation ticks", StringComparison.Ordinal) && w.Contains("lock contention", StringComparison.Ordinal) && w.Contains("unknown whether enabled", StringComparison.Ordinal));
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
