using System.Text.Json;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// A verdict whose three causes the workload made (issue 44; Tests/Workloads/KnownAnswer/CausesWorkload.cs):
/// custom-attribute lookups, a part that throws and catches, and a part that allocates, in shares the thread CPU
/// clock measured. One real recording (kernel session, the default profile).
/// </summary>
[EndToEnd]
public sealed class VerdictCausesTests(ITestOutputHelper output)
{
    public sealed record CausesTruth(int Run, bool Warmup, double LookupsMs, double ThrowingMs, double AllocationMs, long Exceptions, long AllocatedBytes);

    /// <summary>
    /// Each cause is within 5 points of its part's measured share, and they come in the parts' order where the shares
    /// differ by more than the samples can blur (a machine with more stripped runtime code under the lookups read them
    /// 35% against the clock's 45.5%, after the exceptions' 37%: issue 59). Samples the trace
    /// cannot place (stripped runtime code no event explains, the JIT) may be any part's: the truth may lie above
    /// the cause's share by that much too, as in ReflectionAttributionTests. Measured at load 6.8 (a CI run beside):
    /// lookups 36.8% against 45.9% with 13.8% ambiguous; exceptions 24.6% against 30.5%; the allocator's native work
    /// 19.8% against 23.6%. Before exception dispatch spans, the throws' runtime work was "Native runtime" (42% of the
    /// base64 scenario), and the exceptions came last. Since the exception session stops at a high throw rate (this
    /// workload's 8.9 MB/s), the throw call sites name that work: lookups 36% against 46% (22.8% ambiguous), exceptions
    /// 30% against 35.4%, the allocator's native work 20.5% against 18.6%. Its name then led with the stripped runtime
    /// and the C library: Memory clearing is one of its tags, not always one of the two named.
    /// </summary>
    [Fact]
    public void The_verdict_names_lookups_exceptions_and_allocation_in_their_measured_order_and_shares()
    {
        var dir = Repo.NewTempDir("causes");
        try
        {
            var truthPath = Path.Combine(dir, "truth.json");
            // 8 runs of 150 ms of thread CPU, three of them warm-ups: about 1.2 s of CPU, 15 s recorded at load 7.
            // The allocating part's cost is the allocator's native work at the gen0 budget this machine picks; a 4 MiB
            // budget makes it GC (gen0-small in scripts/test-machines.sh): pinned.
            var (exit, folder) = Recording.Record(Path.Combine(dir, "trace"), "--env", RecordedBenchmark.PinnedGen0, "--", "dotnet", KnownAnswerTests.WorkloadDll,
                "--workload", "causes", "--runs", "8", "--run-ms", "150", "--truth", truthPath);
            Assert.Equal(0, exit);
            using var input = TraceInput.Open(folder.Path);
            var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
            Assert.NotNull(analysis.Trace.Kernel);
            var truth = JsonSerializer.Deserialize<List<CausesTruth>>(File.ReadAllText(truthPath))!.Where(t => !t.Warmup).ToList();

            var verdict = Assert.Single(Verdicts.Of(analysis, "Causes"));
            foreach (var line in Verdicts.Lines([verdict])) output.WriteLine(line);
            var measured = analysis.Runs.Where(r => r.Key.Serializer == "Causes" && r.IsMeasured).ToList();
            Assert.Equal(truth.Count, measured.Count);
            var ambiguous = measured.Sum(r => r.TagMs(@"Native runtime\Runtime (libcoreclr, stripped)") + r.TagMs("JIT")) / measured.Sum(r => r.CpuMs);
            var all = truth.Sum(t => t.LookupsMs + t.ThrowingMs + t.AllocationMs);
            double[] parts = [truth.Sum(t => t.LookupsMs) / all, truth.Sum(t => t.ThrowingMs) / all, truth.Sum(t => t.AllocationMs) / all];
            output.WriteLine($"clock: lookups {parts[0]:P1}, throwing {parts[1]:P1}, allocation {parts[2]:P1}; ambiguous {ambiguous:P1}");
            Assert.True(ambiguous <= 0.25, $"{ambiguous:P1} of the samples are unexplained runtime code or JIT: too many to hold the shares to the truth");

            Assert.Equal(3, verdict.Causes.Count);
            var lookups = Assert.Single(verdict.Causes, c => c.Name.StartsWith("Reflection: Custom attributes", StringComparison.Ordinal));
            var exceptions = Assert.Single(verdict.Causes, c => c.Name == "Exceptions");
            var allocation = Assert.Single(verdict.Causes, c => c.Name.StartsWith("Native runtime:", StringComparison.Ordinal));
            Assert.Contains(lookups.Detail, d => d.Contains("from CausesWorkload.Lookups", StringComparison.Ordinal));
            Assert.Contains(exceptions.Detail, d => d.Contains("CausesWorkload.Parse", StringComparison.Ordinal));
            // The allocator's work in the stripped runtime, said with what was allocated (per call, from the trace's
            // allocation events: within 20% of the thread's own count, GC.GetAllocatedBytesForCurrentThread).
            Assert.StartsWith("Native runtime:", allocation.Name, StringComparison.Ordinal);
            Assert.Contains(allocation.Tags, t => t.EndsWith("Memory clearing", StringComparison.Ordinal));
            // What was allocated is said where the clearing is a tenth of the cause or more (Verdicts). With a core kept
            // busy, a CI run's cause held more stripped runtime code and the clearing less: the line was left out there.
            var clearing = verdict.Case.Tags.GetValueOrDefault(@"Native runtime\Memory clearing");
            output.WriteLine($"memory clearing {clearing:F2} ms per call of the cause's {allocation.Ms:F2}");
            if (clearing >= 0.1 * allocation.Ms)
            {
                var allocated = Assert.Single(allocation.Detail, d => d.Contains("MB allocated per call", StringComparison.Ordinal));
                Assert.Contains("Int64[]", allocated, StringComparison.Ordinal);
            }
            var bytesPerRun = truth.Average(t => (double)t.AllocatedBytes);
            Assert.InRange(verdict.Case.AllocatedBytes, 0.8 * bytesPerRun, 1.2 * bytesPerRun);
            // Exceptions per call: the trace's events against the workload's own count.
            Assert.Equal(truth.Average(t => (double)t.Exceptions), verdict.Case.Exceptions, 0.5);

            double Share(Cause c) => c.Ms / verdict.OnCpuMs;
            var expected = new[] { (Cause: lookups, Part: parts[0]), (Cause: exceptions, Part: parts[1]), (Cause: allocation, Part: parts[2]) };
            foreach (var (cause, part) in expected)
                Assert.True(part >= Share(cause) - 0.05 && part <= Share(cause) + ambiguous + 0.05,
                    $"{cause.Name}: {Share(cause):P1} by the verdict (+{ambiguous:P1} ambiguous) vs {part:P1} measured in-process");
            // The order, like with like: a part's clock share holds all of its work, its cause only the frames it
            // names, and the ambiguous share may be any part's. So two causes come in the clock's order only where the
            // clock's shares differ by more than the ambiguous share plus 5 points.
            var order = verdict.Causes.ToList();
            foreach (var a in expected)
                foreach (var b in expected.Where(b => a.Part - b.Part > ambiguous + 0.05))
                    Assert.True(order.IndexOf(a.Cause) < order.IndexOf(b.Cause),
                        $"{a.Cause.Name} ({a.Part:P1} by the clock) after {b.Cause.Name} ({b.Part:P1}), {ambiguous:P1} ambiguous");
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }

    /// <summary>
    /// The seeds' YamlDotNet finding at steady state (README's verdict): at N=10,000 its serialize spends most in
    /// custom-attribute lookups, made per property from the object graph visitors' EnterMapping. The golden recording
    /// (N=300, tier-0 code) cannot show it. Measured: 36.5% custom attributes, first; EnterMapping in two of the three
    /// sites (load 8). Every cause is a tag of the case's own table, in the same ms.
    /// </summary>
    [Fact]
    public void YamlDotNets_first_cause_at_10000_objects_is_custom_attributes_read_from_EnterMapping()
    {
        var dir = Repo.NewTempDir("yaml-verdict");
        try
        {
            // About 11 s: the automatic warm-up, then 10 measured runs of about 70 ms.
            var (exit, folder) = Recording.Record(Path.Combine(dir, "trace"), "--test", "serialize", "--n", "10000", "--serializers", "YamlDotNet", "--runs", "10");
            Assert.Equal(0, exit);
            using var input = TraceInput.Open(folder.Path);
            var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
            var verdict = Assert.Single(Verdicts.Of(analysis, "YamlDotNet"));
            foreach (var line in Verdicts.Lines([verdict], width: 0)) output.WriteLine(line);
            var first = verdict.Causes[0];
            Assert.StartsWith("Reflection: Custom attributes", first.Name, StringComparison.Ordinal);
            Assert.Contains(first.Detail, d => d.Contains("EnterMapping", StringComparison.Ordinal) && d.Contains("GetCustomAttribute", StringComparison.Ordinal));
            foreach (var cause in verdict.Causes.Where(c => c.Tags.Count > 0 && !c.OwnCode))
            {
                Assert.All(cause.Tags, t => Assert.True(verdict.Case.Tags.ContainsKey(t), $"{cause.Name} names {t}, not in the tables"));
                Assert.Equal(cause.Tags.Sum(t => verdict.Case.Tags[t]), cause.Ms, 1e-6 + 1e-9 * cause.Ms);
            }
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }
}
