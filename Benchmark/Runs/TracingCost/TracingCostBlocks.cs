using EtwSerializerProfiler.Benchmark.Runs.Warmup;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Runs.TracingCost;

/// <summary>
/// Measures, per case and in this process, what tracing costs it: after every measured run, each case group runs
/// again in alternating blocks with tracing off and on (<see cref="TracingCostHandshake.Blocks"/>), one group after
/// the other, so drift over time falls on both sides and a pair of blocks is seconds apart. The runs are the case's
/// own measured runs (same operations per run, same marker), kept apart from the results. A case's data is built again for its blocks and dropped after them.
/// </summary>
/// <param name="runsPerBlock">Runs of each case per block.</param>
/// <param name="injectTracedWork">Test switch: per serializer, extra work in traced blocks as a fraction of the untraced time.</param>
/// <param name="sham">Test switch: the traced blocks leave tracing off, so the estimate reads the measurement's own noise.</param>
public sealed class TracingCostBlocks(int runsPerBlock, IReadOnlyDictionary<string, double> injectTracedWork, bool sham, IProgress<string>? progress)
{
    /// <summary>A case group to run again: builds its cases (and what they hold) afresh each block.</summary>
    public sealed record Group(string Name, Func<(IReadOnlyList<(CaseSpec Spec, int Operations)> Cases, IDisposable? Resources)> Build);

    private readonly List<Group> _groups = [];

    public void Add(Group group) => _groups.Add(group);

    /// <summary>
    /// How long a group's untraced settling goes on while the runtime's tiering is not idle. A case the warm-up left
    /// before steady state (its bound reached, methods still queued) sped up 4x inside the kept blocks: XmlSerializer
    /// N=50 read 0.25 ms per operation in the first untraced block, 0.065 ms from the next.
    /// </summary>
    public static readonly TimeSpan MostSettling = TimeSpan.FromSeconds(2);

    /// <summary>Runs the blocks; returns the cases measured and, if the blocks stopped early, why.</summary>
    /// <param name="tiering">Whether the runtime is still tiering code up (<c>TieringWatch</c>); null when unknown.</param>
    public (List<TracingCostCase> Cases, string? Problem) Run(string pipeName, CancellationToken cancel, Func<bool>? tiering = null)
    {
        var byKey = new Dictionary<CaseKey, TracingCostCase>();
        if (_groups.Count == 0) return ([], null);
        var (tracing, problem) = TracingSwitch.Connect(pipeName);
        if (tracing is null) return ([], problem);
        using (tracing)
        {
            bool? current = null;
            // Each group runs its whole pattern before the next: a pair of blocks then lies a second or two apart,
            // not the whole benchmark apart (this machine's speed moved 2x for seconds at a time, tracing or not).
            foreach (var group in _groups)
            {
                for (var block = 0; block < TracingCostHandshake.Blocks.Count; block++)
                {
                    cancel.ThrowIfCancellationRequested();
                    var traced = TracingCostHandshake.Blocks[block];
                    var on = traced && !sham;
                    if (on != current && tracing.Set(on) is { } why) { problem = why; break; }
                    current = on;
                    var keep = block >= TracingCostHandshake.SettlingBlocks;
                    progress?.Report($"tracing cost: {group.Name}: block {block + 1} of {TracingCostHandshake.Blocks.Count}, tracing {(traced ? sham ? "on (sham: left off)" : "on" : "off")}{(keep ? "" : " (settling, not kept)")}");
                    RunGroup(group, traced, keep ? byKey : [], cancel);
                    if (block == TracingCostHandshake.SettlingBlocks - 1) Settle(group, tiering, cancel);
                }
                if (problem is not null) break;
            }
            InjectedWork.Set(0);
            tracing.Done();
        }
        return (byKey.Values.ToList(), problem);
    }

    /// <summary>More untraced blocks, not kept, while tiering is not idle: both sides then run the same code.</summary>
    private void Settle(Group group, Func<bool>? tiering, CancellationToken cancel)
    {
        var clock = System.Diagnostics.Stopwatch.StartNew();
        var blocks = 0;
        while (tiering?.Invoke() == true && clock.Elapsed < MostSettling)
        {
            RunGroup(group, traced: false, [], cancel);
            blocks++;
        }
        if (blocks > 0) progress?.Report($"tracing cost: {group.Name}: {blocks} more untraced block(s) while tiering was not idle ({clock.ElapsedMilliseconds} ms)");
    }

    private void RunGroup(Group group, bool traced, Dictionary<CaseKey, TracingCostCase> byKey, CancellationToken cancel)
    {
        var (cases, resources) = group.Build();
        using (resources)
        {
            foreach (var (spec, operations) in cases)
            {
                var k = spec.Key;
                var entry = byKey.TryGetValue(k, out var e) ? e : byKey[k] = new TracingCostCase
                {
                    Serializer = k.Serializer, Operation = k.Operation, Data = k.Data, Objects = k.Objects, Operations = operations,
                    RunsPerBlock = runsPerBlock,
                };
                // Against the latest untraced block: the case's time drifts on a busy machine, and the pair it is read in is nearby.
                var share = injectTracedWork.TryGetValue(k.Serializer, out var f) ? f : 0;
                var latest = entry.UntracedCpuMs.Skip(Math.Max(0, entry.UntracedCpuMs.Count - runsPerBlock)).ToList();
                InjectedWork.Set(traced && share > 0 && latest.Count > 0 ? share * Median.Upper(latest) : 0);
                for (var i = 0; i < runsPerBlock; i++)
                {
                    cancel.ThrowIfCancellationRequested();
                    var ctx = new RunContext(k.Serializer, k.Operation, k.Data, k.Objects, Run: 10_000 + entry.UntracedMs.Count + entry.TracedMs.Count, Warmup: false, operations);
                    var m = spec.Measure(ctx);
                    (traced ? entry.TracedMs : entry.UntracedMs).Add(m.DurationMs / operations);
                    (traced ? entry.TracedCpuMs : entry.UntracedCpuMs).Add(m.CpuMs / operations);
                }
                InjectedWork.Set(0);
            }
        }
    }
}
