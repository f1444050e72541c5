using EtwSerializerProfiler.Benchmark.Runs;
using EtwSerializerProfiler.Benchmark.Runs.TracingCost;
using EtwSerializerProfiler.Benchmark.Runs.Warmup;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.EventPipe;

namespace EtwSerializerProfiler.Tests.Benchmark;

/// <summary>
/// The tracing-cost blocks against the recorder's real end of the pipe (a switch that only logs): each case group
/// runs its whole pattern before the next group starts, so a block pair lies seconds apart, not the benchmark apart.
/// </summary>
public sealed class TracingCostBlocksTests
{
    [Fact]
    public async Task Each_group_runs_its_whole_pattern_before_the_next()
    {
        var log = new List<string>();
        await using var gate = new TracingCostGate();
        var serve = gate.ServeAsync(on => { lock (log) log.Add(on ? "on" : "off"); return Task.FromResult<string?>(null); },
            () => { lock (log) log.Add("done"); return Task.CompletedTask; }, CancellationToken.None);

        var blocks = new TracingCostBlocks(runsPerBlock: 2, new Dictionary<string, double>(), sham: false, progress: null);
        foreach (var name in new[] { "A", "B" })
            blocks.Add(new TracingCostBlocks.Group(name, () => ([(new CaseSpec(new CaseKey(name, "serialize", "d", 10), _ =>
            {
                lock (log) log.Add(name);
                return new RunMeasurement(2, 2, new GcCounts(0, 0, 0), 0, 0, 1, 1, 2);
            }), 1)], (IDisposable?)null)));
        var (cases, problem) = await Task.Run(() => blocks.Run(gate.PipeName, CancellationToken.None));
        await serve;

        Assert.Null(problem);
        // Runs of B only after every run of A: 13 blocks of 2 runs each.
        var runs = log.Where(e => e is "A" or "B").ToList();
        Assert.Equal(Enumerable.Repeat("A", 26).Concat(Enumerable.Repeat("B", 26)), runs);
        // Within each group the switch follows the pattern: A's blocks, then B's from where A left it (off).
        var traced = false;
        var perRun = new List<bool>();
        foreach (var e in log)
        {
            if (e == "on") traced = true;
            else if (e == "off") traced = false;
            else if (e is "A" or "B") perRun.Add(traced);
        }
        var expected = TracingCostHandshake.Blocks.SelectMany(b => new[] { b, b }).ToList();
        Assert.Equal(expected.Concat(expected), perRun);
        Assert.Equal("done", log[^1]);
        Assert.All(cases, c => Assert.Equal((12, 12), (c.UntracedMs.Count, c.TracedMs.Count)));
        Assert.Equal(["A", "B"], cases.Select(c => c.Serializer).Order());
    }
}
