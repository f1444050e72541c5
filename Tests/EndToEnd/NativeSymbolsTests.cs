using System.Text.Json;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Symbols;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// `--symbols` on native code of our own: Tests/Workloads/KnownAnswer/Native/espburn.c compiled here with a build id,
/// its debug info split off (objcopy --only-keep-debug) and the library stripped, called through P/Invoke by the
/// known-answer workload, which measures each C function's thread CPU time itself. Recorded with the kernel session:
/// without the debug file perf names neither function and the recorder says which module lacks symbols; with it, the
/// analyzer names both, in the measured shares, and the unnamed share drops.
/// </summary>
[EndToEnd]
public sealed class NativeSymbolsTests(ITestOutputHelper output) : IDisposable
{
    private const string Burn = "NativeBurn";
    private readonly string _dir = Repo.NewTempDir("natsym");

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }

    private static string Source => Path.Combine(Repo.Root, "Tests", "Workloads", "KnownAnswer", "Native", "espburn.c");

    private void Tool(string file, params string[] args)
    {
        var r = ProcessRunner.Run(file, args);
        Assert.True(r.ExitCode == 0, $"{file} {string.Join(' ', args)}: {r.StdErr}");
    }

    /// <summary>The stripped library, the debug file alone in a flat folder and in a build-id tree; the build id from readelf.</summary>
    private (string Library, string Flat, string Tree, string BuildId) Build()
    {
        var full = Path.Combine(_dir, "build", "libespburn.so");
        Directory.CreateDirectory(Path.GetDirectoryName(full)!);
        Tool("gcc", "-g", "-O1", "-fPIC", "-shared", "-fno-omit-frame-pointer", "-Wl,--build-id=sha1", "-o", full, Source);
        var readelf = ProcessRunner.Run("readelf", ["-n", full]);
        var buildId = readelf.StdOut.Split('\n').Single(l => l.Contains("Build ID:", StringComparison.Ordinal)).Split(':')[1].Trim();
        var flat = Directory.CreateDirectory(Path.Combine(_dir, "symbols-flat")).FullName;
        var debug = Path.Combine(flat, "libespburn.so.dbg");
        Tool("objcopy", "--only-keep-debug", full, debug);
        var tree = Path.Combine(_dir, "symbols-tree");
        Directory.CreateDirectory(Path.Combine(tree, ".build-id", buildId[..2]));
        File.Copy(debug, Path.Combine(tree, ".build-id", buildId[..2], buildId[2..] + ".debug"));
        // Stripped, and no .gnu_debuglink: perf cannot find the debug file beside the library by itself.
        var library = Path.Combine(Directory.CreateDirectory(Path.Combine(_dir, "lib")).FullName, "libespburn.so");
        Tool("objcopy", "--strip-all", full, library);
        Directory.Delete(Path.GetDirectoryName(full)!, recursive: true);
        return (library, flat, tree, buildId);
    }

    [Fact]
    public async Task A_split_off_debug_file_names_both_functions_in_their_measured_shares()
    {
        var (library, flat, tree, buildId) = Build();
        Assert.Equal(buildId, ElfBuildId.Read(Path.Combine(flat, "libespburn.so.dbg"))?.BuildId); // the reader against readelf
        var truthPath = Path.Combine(_dir, "truth.json");
        var (exit, folder, _) = await Recording.RecordAsync(Path.Combine(_dir, "trace"),
            ["--", "dotnet", KnownAnswerTests.WorkloadDll, "--workload", "native", "--native-lib", library, "--runs", "4", "--run-ms", "250", "--truth", truthPath]);
        Assert.Equal(0, exit);

        // The recorder names the module perf could not name, with the build id its debug file is found by.
        var kernel = TraceManifest.TryLoad(folder.Manifest)!.Kernel!;
        var unnamedModule = Assert.Single(kernel.UnnamedNativeModules!, m => m.Path == library);
        Assert.Equal(buildId, unnamedModule.BuildId);
        Assert.True(unnamedModule.UnnamedLeafSamples > 0.9 * unnamedModule.LeafSamples, $"{unnamedModule.UnnamedLeafSamples} of {unnamedModule.LeafSamples}");

        var truth = JsonSerializer.Deserialize<List<NativeTruth>>(File.ReadAllText(truthPath))!;
        var alphaTruth = truth.Sum(t => t.AlphaMs) / truth.Sum(t => t.AlphaMs + t.BetaMs);

        var before = Analyze(folder.Path, []);
        Assert.DoesNotContain(before.Hot.Keys, k => k.Contains("alpha_spin", StringComparison.Ordinal) || k.Contains("beta_spin", StringComparison.Ordinal));
        var flatResult = Analyze(folder.Path, [flat]);
        var treeResult = Analyze(folder.Path, [tree]);
        foreach (var (name, r) in new[] { ("none", before), ("flat", flatResult), ("build-id tree", treeResult) })
            output.WriteLine($"--symbols {name}: unnamed {r.UnnamedShare:P1} of on-CPU time; {string.Join(", ", r.Hot.OrderByDescending(h => h.Value.ExclusiveMs).Take(4).Select(h => $"{h.Key} {h.Value.ExclusiveMs:F1} ms"))}; {r.Analysis.Trace.Kernel?.SymbolsFrom}");
        output.WriteLine($"truth: alpha_spin {alphaTruth:P1} of the two functions' thread CPU time ({truth.Sum(t => t.AlphaMs + t.BetaMs):F0} ms)");

        // Measured (4 runs of 250 ms, load average 28): unnamed 95.9% without, 0.1% with; alpha_spin 42.2% of the two by
        // name, 41.4% by the thread CPU clock (by hand, 4 runs of 300 ms: 61.9% vs 62.0%). The bounds leave room for a
        // sampler's 1 ms grain on ~1 s of CPU and for a loaded machine's clock reads.
        Assert.True(before.UnnamedShare > 0.8, $"without symbols {before.UnnamedShare:P1} unnamed");
        foreach (var r in new[] { flatResult, treeResult })
        {
            var alpha = r.Exclusive("alpha_spin");
            var beta = r.Exclusive("beta_spin");
            Assert.True(alpha > 0 && beta > 0, "both functions named");
            Assert.True(Math.Abs(alpha / (alpha + beta) - alphaTruth) <= 0.05, $"alpha_spin {alpha / (alpha + beta):P1} by name vs {alphaTruth:P1} measured in-process");
            // The two functions are nearly all of the runs' CPU: what is named is the time, not a sliver of it.
            Assert.True(alpha + beta > 0.8 * r.CpuMs, $"{alpha + beta:F1} of {r.CpuMs:F1} ms named alpha_spin or beta_spin");
            Assert.True(r.UnnamedShare < before.UnnamedShare - 0.5, $"unnamed {r.UnnamedShare:P1} with symbols vs {before.UnnamedShare:P1} without");
            Assert.Contains(buildId, r.Analysis.Trace.Kernel!.SymbolsFrom, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task Naming_again_loses_no_name_perf_gave_at_recording_time()
    {
        var (library, flat, _, _) = Build();
        var (exit, folder, _) = await Recording.RecordAsync(Path.Combine(_dir, "trace"),
            ["--", "dotnet", KnownAnswerTests.WorkloadDll, "--workload", "native", "--native-lib", library, "--runs", "2", "--run-ms", "100"]);
        Assert.Equal(0, exit);
        using var input = TraceInput.Open(folder.Path);
        var symbols = NativeSymbols.Prepare(input, new AnalyzerOptions { SymbolFolders = [flat] })!;
        Assert.Null(symbols.Useless);
        var stored = PerfScriptReader.Read(folder.KernelScript, 1, out _);
        var again = symbols.Read(utf8 => PerfScriptReader.Read(utf8, 1, out _));
        Assert.Equal(stored.Samples.Count, again.Samples.Count);
        Assert.Equal(stored.SwitchOuts.Count, again.SwitchOuts.Count);
        var named = again.Frames.GroupBy(f => (f.Address, f.Dso)).ToDictionary(g => g.Key, g => g.First().Symbol);
        var lost = stored.Frames.Where(f => f.Symbol != "[unknown]" && named.GetValueOrDefault((f.Address, f.Dso)) != f.Symbol).ToList();
        Assert.True(lost.Count == 0, $"{lost.Count} frames lost their name, e.g. {string.Join(", ", lost.Take(3).Select(f => $"{f.Symbol} ({f.Dso})"))}");
        var gained = again.Frames.Count(f => f.Dso == library && f.Symbol is "alpha_spin" or "beta_spin");
        Assert.True(gained > 0, "no frame of the library was named");
    }

    /// <summary>The workload's truth file (Tests/Workloads/KnownAnswer/NativeWorkload.cs): each function's thread CPU time per run.</summary>
    private sealed record NativeTruth(int Run, double AlphaMs, double BetaMs);

    private sealed record Result(TraceAnalysis Analysis, IReadOnlyDictionary<string, HotMethod> Hot, double UnnamedShare, double CpuMs)
    {
        public double Exclusive(string function) => Hot.Where(h => h.Key.EndsWith("!" + function, StringComparison.Ordinal)).Sum(h => h.Value.ExclusiveMs);
    }

    private static Result Analyze(string folder, IReadOnlyList<string> symbols)
    {
        using var input = TraceInput.Open(folder);
        var analysis = new TraceAnalyzer(new AnalyzerOptions { CollectHotMethods = true, SymbolFolders = symbols }).Analyze(input);
        Assert.Equal(CpuSourceKind.Perf, analysis.Trace.CpuSource);
        // The measured runs: those the hot methods cover (as the CPU column and the call trees do), not the warm-up.
        var runs = analysis.Runs.Where(r => r.Key.Serializer == Burn && r.IsMeasured).ToList();
        Assert.NotEmpty(runs);
        var hot = analysis.HotMethods.Single(h => h.Key.Serializer == Burn).Value;
        return new Result(analysis, hot, runs.Sum(r => r.UnnamedLeafMs) / runs.Sum(r => r.CpuMs), runs.Sum(r => r.CpuMs));
    }
}
