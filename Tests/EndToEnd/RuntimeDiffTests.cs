using System.Text.Json;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// The known answer of the seeds' runtime comparison, run for real: Reflection deserialize on .NET 8 against .NET 10
/// (`esp record --runtime 8.0,10.0 --launches 4`, interleaved, then `esp diff 8.0-1 .. 8.0-4 vs 10.0-1 ..`).
/// Between those releases the FieldInfo accessors were rewritten, so the change is negative and the
/// Reflection\FieldInfo.SetValue tag explains it. By hand on an idle-ish machine (N=10,000, one launch per side):
/// 3.27 vs 2.37 ms per operation, the tag 1.29 vs 0.18 ms.
///
/// Measured here with both cores busy (two `yes` processes beside load average ~28 from other work), 2026-11-22:
/// - N=1,000, 5 runs x 3 launches per side (this test's settings then, 4 launches now; 104 s to record, publish cached): on-CPU 0.699 vs
///   0.568 ms per operation (-19%, p=0.23: not significant under that load), FieldInfo.SetValue 0.194 vs 0.066 ms
///   (significant), the factored-out tags -0.148 ms of which SetValue is 87%; duration 6.45 vs 5.26 ms (p=0.57).
/// - N=10,000, 10 runs x 3 launches (198 s): on-CPU 13.0 vs 11.0 ms (-15%, p=0.16), FieldInfo.SetValue 2.32 vs
///   0.83 ms (significant), Activator\CreateInstance 1.03 vs 0.16 ms (significant); SetValue 66% of the factored-out delta.
/// A loaded machine inflates every time 2-70x and GC pauses dominate the totals' variance, so the totals are held to
/// their sign and the significance to the tag the answer is about; the share bound (half) is generous against 66-87%.
/// 25 runs a launch: a run at N=1,000 is about 20 ms, 10 samples at 2 ms, so 5 runs gave a launch about 50 samples and
/// the tag's launch means spread like counts of 15 (.NET 8: 0.076-0.133 ms; a clean-clone CI run found the fall, 0.128 to
/// 0.015 ms, not significant at p=0.052). With 25 (0.4 s more a launch), here with one core busy: 0.070-0.090 against
/// 0.010-0.015 ms, p=0.0003, SetValue 85% of the factored-out fall.
/// The first run on a machine publishes the .NET 8 benchmark (~100 s, cached in Benchmark/bin/runtimes).
/// </summary>
[EndToEnd]
[AfterSetUp(SetUp.Net8Benchmark)]
public sealed class RuntimeDiffTests(Xunit.Abstractions.ITestOutputHelper output) : IDisposable
{
    private const string SetValueTag = "Reflection\\FieldInfo.SetValue";
    private readonly string _dir = Repo.NewTempDir("runtimes");
    private static string Esp => Path.Combine(Repo.BinDir, "esp.dll");

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }

    [Fact]
    public void Reflection_deserialize_on_NET_10_costs_less_than_on_NET_8_and_FieldInfo_SetValue_explains_it()
    {
        Prefetch.Net8Benchmark();
        var record = ProcessRunner.Run("dotnet", [Esp, "record", "--runtime", "8.0,10.0", "--launches", "4", "--out", _dir,
            "--serializers", "Reflection", "--test", "deserialize", "--n", "1000", "--runs", "25",
            // The automatic warm-up, with room: it once ended a .NET 10 launch "steady" with 59% of the measured CPU
            // still in tier-0 code (0.376 ms per operation against .NET 8's 0.252; a clean-clone CI run failed on it),
            // because the JIT count alone cannot see the runtime's call-counting delay. It now waits on the runtime's
            // own tiering events (docs/benchmark.md#warm-up), which on this busy VM takes 2.7-3.8 s for this case, more
            // than the default 2 s bound: hence the raised bound (the rule, not a fixed count, still decides). Measured:
            // 3 of 3 test runs passed, all 18 launches steady after 60-192 runs (1.9-4.4 s, load average 9-19).
            "--warmup-max-ms", "10000", "--warmup-max-runs", "1000", "--quiet"], TimeSpan.FromMinutes(12));
        Assert.True(record.ExitCode == 0, record.StdErr);
        string[] baseline = [.. Enumerable.Range(1, 4).Select(i => Path.Combine(_dir, $"8.0-{i}"))];
        string[] trace = [.. Enumerable.Range(1, 4).Select(i => Path.Combine(_dir, $"10.0-{i}"))];
        Assert.Contains($"esp diff {string.Join(' ', baseline)} vs {string.Join(' ', trace)}", record.StdOut, StringComparison.Ordinal);
        foreach (var launch in baseline.Concat(trace))
            foreach (var w in Common.BenchmarkResults.Load(Path.Combine(launch, "results.json")).Warmups ?? [])
                output.WriteLine($"{Path.GetFileName(launch)}: {(w.SteadyState ? "steady" : "NOT steady")} after {w.WarmupRuns} runs ({w.WarmupMs:F0} ms): {w.Reason}");

        var text = ProcessRunner.Run("dotnet", [Esp, "diff", .. baseline, "vs", .. trace], TimeSpan.FromMinutes(5));
        Assert.True(text.ExitCode == 0, text.StdErr);
        Assert.Matches(@"runtimes: baseline = \.NET 8\.0\.\d+, trace = \.NET 10\.0\.\d+", text.StdOut);
        Assert.Contains("(4 launches, each one sample)", text.StdOut, StringComparison.Ordinal);
        Assert.DoesNotContain("one launch on", text.StdOut, StringComparison.Ordinal);
        Assert.Contains("Welch's t-test on the launches' means (4 launch(es) in the baseline, 4 in the trace", text.StdOut, StringComparison.Ordinal);

        var json = ProcessRunner.Run("dotnet", [Esp, "diff", .. baseline, "vs", .. trace, "--format", "json"], TimeSpan.FromMinutes(5));
        var row = JsonDocument.Parse(json.StdOut).RootElement.GetProperty("rows").EnumerateArray()
            .Single(r => r.GetProperty("serializer").GetString() == "Reflection" && r.GetProperty("operation").GetString() == "deserialize");
        var cpu = row.GetProperty("metrics").GetProperty("cpuMs");
        Assert.Equal(100, cpu.GetProperty("baseline").GetProperty("runs").GetInt32());
        Assert.True(cpu.GetProperty("delta").GetDouble() < 0, $"on-CPU per operation did not fall: {cpu}");

        var tags = row.GetProperty("tags").EnumerateArray().ToList();
        var setValue = tags.Single(t => t.GetProperty("tag").GetString() == SetValueTag);
        var setValueDelta = setValue.GetProperty("delta").GetDouble();
        Assert.True(setValueDelta < 0, $"{SetValueTag} did not fall: {setValue}");
        Assert.True(setValue.GetProperty("noise").GetProperty("significant").GetBoolean(), $"{SetValueTag}'s fall is within noise: {setValue}");
        // "Explains most of it": the largest fall of any tag, and at least half of what all reflection and Activator tags fell by.
        var largestFall = tags.MinBy(t => t.GetProperty("delta").GetDouble());
        Assert.Equal(SetValueTag, largestFall.GetProperty("tag").GetString());
        var factoredOut = row.GetProperty("explained").GetProperty("cpuMs").GetProperty("factoredOutDelta").GetDouble();
        Assert.True(factoredOut < 0 && setValueDelta / factoredOut >= 0.5, $"{SetValueTag} {setValueDelta:F3} ms of the factored-out tags' {factoredOut:F3} ms");
    }
}
