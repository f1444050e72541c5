using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Diff;

/// <summary>
/// Compares the runs of two traces. Rows match by (serializer, operation, objects) and tags by path only, never by
/// module, address or thread: the two traces may come from different processes, runtimes or operating systems.
/// Only measured runs count (warm-up excluded), and every metric is compared run-by-run with Welch's t-test.
/// Pure: no I/O, so it is tested on synthetic runs.
/// </summary>
public static class TraceDiffer
{
    private static readonly (string Name, Func<RunAnalysis, double> Value)[] s_metrics =
    [
        (RowDiff.DurationMs, r => r.DurationMs),
        (RowDiff.CpuMs, r => r.CpuMs),
        (RowDiff.ThreadCpuMs, r => CpuClockAgreement.ThreadClockMs(r) ?? r.InProcess!.CpuMs),
        (RowDiff.GcCount, r => r.Gen0 + r.Gen1 + r.Gen2),
        (RowDiff.GcPauseMs, r => r.GcPauseMs),
        (RowDiff.AllocatedBytes, r => r.Counters.AllocatedBytes),
    ];

    /// <summary>The divisor of a metric: the window's time per operation of one thread, everything else per call.</summary>
    private static double PerOperationOf(string metric, RunAnalysis run) =>
        metric is RowDiff.DurationMs or RowDiff.GcPauseMs ? run.Operations : run.Calls;

    public static TraceDiff Compute(DiffSide baseline, IEnumerable<RunAnalysis> baselineRuns, DiffSide trace, IEnumerable<RunAnalysis> traceRuns, DiffSettings? settings = null)
    {
        settings ??= new DiffSettings();
        var left = Measured(baselineRuns);
        var right = Measured(traceRuns);
        var rows = left.Keys.Union(right.Keys)
            .OrderBy(k => SerializerSummary.OperationOrder(k.Operation)).ThenBy(k => k.Operation, StringComparer.Ordinal)
            .ThenBy(k => k.Objects).ThenBy(k => k.Serializer, StringComparer.OrdinalIgnoreCase)
            .Select(k => Row(k, left.GetValueOrDefault(k), right.GetValueOrDefault(k), baseline, trace, settings))
            .ToList();
        return new TraceDiff(baseline, trace, settings, rows);
    }

    private static Dictionary<(string Serializer, string Operation, int Objects), List<RunAnalysis>> Measured(IEnumerable<RunAnalysis> runs) =>
        runs.Where(r => r.IsMeasured)
            .GroupBy(r => (r.Key.Serializer, r.Key.Operation, r.Key.Objects))
            .ToDictionary(g => g.Key, g => g.ToList());

    private static RowDiff Row((string Serializer, string Operation, int Objects) key, List<RunAnalysis>? b, List<RunAnalysis>? t, DiffSide baseline, DiffSide trace, DiffSettings settings)
    {
        // Per operation: a run repeats the call Operations times, and two launches may size their runs differently.
        // With a --threads crew, what the threads did is per call (Operations x crew), the window's time per operation,
        // as the analysis tables have them (SerializerSummary); one thread: the same divisor.
        MetricDiff Compare(string name, Func<RunAnalysis, double> value) =>
            Diff(name, b?.Select(r => value(r) / PerOperationOf(name, r)).ToList(), t?.Select(r => value(r) / PerOperationOf(name, r)).ToList(), settings.Alpha);

        // Thread CPU comes from results.json; without it for every run (e.g. `record -- cmd`) it is left out.
        var hasThreadCpu = (b ?? []).Concat(t ?? []).All(r => r.InProcess is not null);
        var metrics = s_metrics.Where(m => hasThreadCpu || m.Name != RowDiff.ThreadCpuMs).Select(m => Compare(m.Name, m.Value)).ToList();
        var tagPaths = (b ?? []).Concat(t ?? []).SelectMany(r => r.Tags.Keys).Distinct(StringComparer.Ordinal);
        var tags = tagPaths
            .Select(path => Compare(path, r => r.Tags.GetValueOrDefault(path)))
            .OrderByDescending(d => Math.Abs(d.Delta ?? (d.Baseline ?? d.Trace)!.Mean))
            .ThenBy(d => d.Name, StringComparer.Ordinal)
            .ToList();

        var explained = new List<ExplainedDiff>();
        if (b is not null && t is not null)
        {
            double FactoredOut(RunAnalysis r) => settings.FactoredOutTags.Sum(r.TagMs);
            // Samples give the distribution, the thread's CPU clock the amount: the factored-out tags' share of the
            // run's samples applied to its thread CPU time. EventPipe samples a thread that another process has
            // preempted as if it ran, so on a busy machine this is the estimate that load does not inflate.
            double FactoredOutThreadCpu(RunAnalysis r)
            {
                var sampled = r.Tags.Values.Sum();
                return sampled == 0 ? 0 : (CpuClockAgreement.ThreadClockMs(r) ?? r.InProcess!.CpuMs) * FactoredOut(r) / sampled;
            }
            var lines = new List<(string Name, Func<RunAnalysis, double> FactoredOut)> { (RowDiff.DurationMs, FactoredOut), (RowDiff.CpuMs, FactoredOut) };
            if (hasThreadCpu) lines.Add((RowDiff.ThreadCpuMs, FactoredOutThreadCpu));
            foreach (var (name, factoredOut) in lines)
            {
                var value = s_metrics.First(m => m.Name == name).Value;
                var total = metrics.First(m => m.Name == name);
                var factored = t.Average(r => factoredOut(r) / PerOperationOf(name, r)) - b.Average(r => factoredOut(r) / PerOperationOf(name, r));
                var remainder = Compare(name + " - " + string.Join("+", settings.FactoredOutTags), r => value(r) - factoredOut(r));
                explained.Add(new ExplainedDiff(name, total.Delta!.Value, factored, remainder, total.Baseline!.Mean, settings.Tolerance));
            }
        }

        string? note = null;
        if (b is null && baseline.Unsupported.TryGetValue(key.Serializer, out var whyNotBaseline)) note = $"not run in baseline: {whyNotBaseline}";
        if (t is null && trace.Unsupported.TryGetValue(key.Serializer, out var whyNotTrace)) note = $"not run in trace: {whyNotTrace}";

        return new RowDiff
        {
            Serializer = key.Serializer,
            Operation = key.Operation,
            Objects = key.Objects,
            Presence = b is null ? Presence.OnlyInTrace : t is null ? Presence.OnlyInBaseline : Presence.Both,
            Metrics = metrics,
            Tags = tags,
            Explained = explained,
            Note = note,
        };
    }

    private static MetricDiff Diff(string name, IReadOnlyList<double>? baseline, IReadOnlyList<double>? trace, double alpha)
    {
        var b = baseline is null ? null : SampleStats.Of(baseline);
        var t = trace is null ? null : SampleStats.Of(trace);
        var noise = b is null || t is null ? NoiseVerdict.OneSided : WelchTest.Compare(b, t, alpha);
        return new MetricDiff(name, b, t, noise);
    }
}
