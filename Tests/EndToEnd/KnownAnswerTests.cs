using System.Text.Json;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// Tag shares held to a known answer: Tests/Workloads/KnownAnswer runs reflection, arithmetic and allocation in
/// random interleaved chunks inside marked runs and measures each part's thread CPU time itself. Recorded with the
/// kernel session, the analyzer's share of each part's stack tag must match the measured share within 5 points.
/// </summary>
[EndToEnd]
public sealed class KnownAnswerTests(ITestOutputHelper output) : IDisposable
{
    private static readonly string[] Parts = ["Reflection", "Arithmetic", "Allocation"];
    private readonly string _dir = Repo.NewTempDir("known");

    public void Dispose()
    {
        try { Directory.Delete(_dir, recursive: true); } catch (IOException) { }
    }

    /// <summary>The workload's program, built beside the tests (Tests.csproj references it).</summary>
    public static string WorkloadDll => Path.Combine(Repo.BinDir.Replace(Path.Combine("Tests", "bin"), Path.Combine("Tests", "Workloads", "KnownAnswer", "bin"), StringComparison.Ordinal), "KnownAnswer.dll");

    /// <summary>One tag per part, ranked above everything built in so a part claims all the work under it, GC included.</summary>
    public static string PartTags(string dir)
    {
        var path = Path.Combine(dir, "parts.stacktags");
        File.WriteAllText(path, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<Tag Name=\"\">\n  <Tag Name=\"Known answer\">\n"
            + string.Concat(Parts.Select(p => $"    <Tag Name=\"{p} part\" Priority=\"30\"><Entrypoint Module=\"KnownAnswer.*\" Method=\"EtwSerializerProfiler.Workloads.PartsWorkload::{p}Part*\"/></Tag>\n"))
            + "  </Tag>\n</Tag>\n");
        return path;
    }

    [Fact]
    public async Task Each_parts_share_of_kernel_CPU_matches_its_share_of_the_thread_CPU_clock_within_5_points()
    {
        Assert.True(File.Exists(WorkloadDll), $"{WorkloadDll} not built");
        var truthPath = Path.Combine(_dir, "truth.json");
        var (exit, folder, _) = await Recording.RecordAsync(Path.Combine(_dir, "trace"), ["--", "dotnet", WorkloadDll, "--runs", "7", "--run-ms", "250", "--truth", truthPath]);
        Assert.Equal(0, exit);
        using var input = TraceInput.Open(folder.Path);
        var analysis = new TraceAnalyzer(new AnalyzerOptions { StackTagsPaths = [PartTags(_dir)] }).Analyze(input);
        Assert.Equal(CpuSourceKind.Perf, analysis.Trace.CpuSource);

        // Run 0 is the warm-up (tier-0 code, JIT); the shares are pooled over the measured runs.
        var truth = JsonSerializer.Deserialize<List<PartTruth>>(File.ReadAllText(truthPath))!.Where(t => t.Run > 0).ToList();
        var measured = analysis.Runs.Where(r => r.Key.Serializer == "KnownAnswer" && !r.IsWarmup).ToList();
        Assert.Equal(truth.Count, measured.Count);
        var truthMs = Parts.Select(p => truth.Sum(t => t.Of(p))).ToArray();
        // Only the reflection part calls reflection: the built-in reflection tags (the runtime's reflection surface,
        // which a user's tags combine with) name some of its samples by API, FieldInfo.SetValue and the like (62 of
        // its ~345 ms once, which put the parts 5.1 points off), so they count as that part.
        var tagMs = Parts.Select(p => measured.Sum(r => r.Tags.GetValueOrDefault($"Known answer\\{p} part")
            + (p == "Reflection" ? r.TagMs("Reflection") : 0))).ToArray();
        var tagTotal = tagMs.Sum();
        var shares = Parts.Select((p, i) => (Part: p, Actual: tagMs[i] / tagTotal, Expected: truthMs[i] / truthMs.Sum())).ToList();
        foreach (var (part, actual, expected) in shares)
            output.WriteLine($"{part}: {actual:P1} of the parts' kernel CPU, {expected:P1} of their thread CPU time");
        output.WriteLine($"the parts' tags hold {tagTotal:F1} of {measured.Sum(r => r.CpuMs):F1} ms; the rest: " +
            string.Join(", ", measured.SelectMany(r => r.Tags).Where(t => !t.Key.StartsWith("Known answer", StringComparison.Ordinal)).GroupBy(t => t.Key).Select(g => $"{g.Key} {g.Sum(t => t.Value):F1}")));
        foreach (var (part, actual, expected) in shares)
            Assert.True(Math.Abs(actual - expected) <= 0.05, $"{part} part: {actual:P1} by stack tags vs {expected:P1} measured in-process");
        // The rest is the truth measurement's own clock reads (system calls between the chunks) and samples whose part
        // frame frame-pointer unwinding lost; if that were most of the CPU, the shares above would say little.
        Assert.True(tagTotal > 0.6 * measured.Sum(r => r.CpuMs), $"the parts' tags hold only {tagTotal:F1} of {measured.Sum(r => r.CpuMs):F1} ms");
    }

    private sealed record PartTruth(int Run, double ReflectionMs, double ArithmeticMs, double AllocationMs)
    {
        public double Of(string part) => part switch { "Reflection" => ReflectionMs, "Arithmetic" => ArithmeticMs, _ => AllocationMs };
    }
}
