using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Diff;

/// <summary>
/// Compares two sides, each one or more launches. Rows match by (serializer, operation, objects) and tags by path only,
/// never by module, address or thread: the two traces may come from different processes, runtimes or operating systems.
/// Only measured runs count (warm-up excluded). The launch is the unit: each launch's runs give one mean, and with two
/// or more launches per side Welch's t-test compares those means; runs inside one process share its luck (memory
/// layout, first-touch page faults, what the JIT decided), so they are not independent samples of a launch. With one
/// launch on a side nothing is judged; Welch's test on the runs (<see cref="MetricDiff.RunNoise"/>) says only
/// whether Δ stands out from the runs' spread. Pure: no I/O, so it is tested on synthetic runs.
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

    /// <summary>One launch per side: the runs of one trace each.</summary>
    public static TraceDiff Compute(DiffSide baseline, IEnumerable<RunAnalysis> baselineRuns, DiffSide trace, IEnumerable<RunAnalysis> traceRuns, DiffSettings? settings = null) =>
        CompareLaunches(baseline, [baselineRuns], trace, [traceRuns], settings);

    /// <summary>Each side as its launches, each launch the runs of one trace.</summary>
    public static TraceDiff CompareLaunches(DiffSide baseline, IReadOnlyList<IEnumerable<RunAnalysis>> baselineLaunches, DiffSide trace, IReadOnlyList<IEnumerable<RunAnalysis>> traceLaunches, DiffSettings? settings = null)
    {
        settings ??= new DiffSettings();
        if (baseline.Launches.Count != baselineLaunches.Count || trace.Launches.Count != traceLaunches.Count)
            throw new ArgumentException($"each side needs the runs of every launch it names: baseline {baseline.Launches.Count} launch(es), {baselineLaunches.Count} list(s) of runs; trace {trace.Launches.Count}, {traceLaunches.Count}");
        var left = Measured(baselineLaunches);
        var right = Measured(traceLaunches);
        var rows = left.Keys.Union(right.Keys)
            .OrderBy(k => CaseSummary.OperationOrder(k.Operation)).ThenBy(k => k.Operation, StringComparer.Ordinal)
            .ThenBy(k => k.Objects).ThenBy(k => k.Serializer, StringComparer.OrdinalIgnoreCase)
            .Select(k => Row(k, left.GetValueOrDefault(k), right.GetValueOrDefault(k), baseline, trace, settings))
            .ToList();
        return new TraceDiff(baseline, trace, settings, rows);
    }

    /// <summary>Per row, its measured runs in each launch that has them (a launch without the row is left out).</summary>
    private static Dictionary<(string Serializer, string Operation, int Objects), List<List<RunAnalysis>>> Measured(IReadOnlyList<IEnumerable<RunAnalysis>> launches)
    {
        var rows = new Dictionary<(string Serializer, string Operation, int Objects), List<List<RunAnalysis>>>();
        foreach (var launch in launches)
            foreach (var g in launch.Where(r => r.IsMeasured).GroupBy(r => (r.Key.Serializer, r.Key.Operation, r.Key.Objects)))
            {
                if (!rows.TryGetValue(g.Key, out var list)) rows[g.Key] = list = [];
                list.Add(g.ToList());
            }
        return rows;
    }

    private static RowDiff Row((string Serializer, string Operation, int Objects) key, List<List<RunAnalysis>>? b, List<List<RunAnalysis>>? t, DiffSide baseline, DiffSide trace, DiffSettings settings)
    {
        // Per operation: a run repeats the call Operations times, and two launches may size their runs differently.
        // With a --threads crew, what the threads did is per call (Operations x crew), the window's time per operation,
        // as the analysis tables have them (CaseSummary); one thread: the same divisor.
        MetricDiff Compare(string name, Func<RunAnalysis, double> value) =>
            Diff(name, PerOperation(b, name, value), PerOperation(t, name, value), settings.Alpha);
        // CPU and its tags come from a CPU source: a run none covers (a kernel session cut short) has no figure, not 0.
        // Only covered runs count; a side with none has no CPU (shown as -).
        var bCovered = Covered(b);
        var tCovered = Covered(t);
        MetricDiff CompareCpu(string name, Func<RunAnalysis, double> value) =>
            Diff(name, PerOperation(bCovered, name, value), PerOperation(tCovered, name, value), settings.Alpha);

        var bRuns = b?.SelectMany(l => l).ToList();
        var tRuns = t?.SelectMany(l => l).ToList();
        // Thread CPU comes from results.json; without it for every run (e.g. `record -- cmd`) it is left out.
        var hasThreadCpu = (bRuns ?? []).Concat(tRuns ?? []).All(r => r.InProcess is not null);
        var metrics = s_metrics.Where(m => hasThreadCpu || m.Name != RowDiff.ThreadCpuMs)
            .Select(m => m.Name == RowDiff.CpuMs ? CompareCpu(m.Name, m.Value) : Compare(m.Name, m.Value))
            .Concat(settings.Columns.Where(c => c.Diff).Select(c => Diff(c.Name, Having(b, c), Having(t, c), settings.Alpha))).ToList();
        var tagPaths = (bCovered?.SelectMany(l => l) ?? []).Concat(tCovered?.SelectMany(l => l) ?? []).SelectMany(r => r.Tags.Keys).Distinct(StringComparer.Ordinal);
        var tags = tagPaths
            .Select(path => CompareCpu(path, r => r.Tags.GetValueOrDefault(path)))
            .OrderByDescending(d => Math.Abs(d.Delta ?? (d.Baseline ?? d.Trace)!.Mean))
            .ThenBy(d => d.Name, StringComparer.Ordinal)
            .ToList();

        var explained = new List<ExplainedDiff>();
        // The split into factored-out tags and the rest needs the tags: over the runs a CPU source covers, on both sides.
        var allCovered = ReferenceEquals(bCovered, b) && ReferenceEquals(tCovered, t);
        MetricDiff Total(string name, Func<RunAnalysis, double> value) => allCovered ? metrics.First(m => m.Name == name) : CompareCpu(name, value);
        if (bCovered is not null && tCovered is not null)
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
                var total = Total(name, value);
                var factored = MeanOfLaunchMeans(PerOperation(tCovered, name, factoredOut)!) - MeanOfLaunchMeans(PerOperation(bCovered, name, factoredOut)!);
                var remainder = CompareCpu(name + " - " + string.Join("+", settings.FactoredOutTags), r => value(r) - factoredOut(r));
                explained.Add(new ExplainedDiff(name, total.Delta!.Value, factored, remainder, total.Baseline!.Mean, settings.Tolerance)
                {
                    NoShareReason = NoShareReason(total, settings),
                });
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

    /// <summary>
    /// A share of Δ is printed only when Δ is a change to divide by: beyond the tolerance of the baseline (a ratio over
    /// a near-zero Δ can be any number, e.g. −1068%), and not within noise: launch noise when launches can be compared,
    /// the runs' spread otherwise (with one launch that is all a diff can see; the ratio then splits the Δ these two
    /// processes showed, not a Δ between configurations).
    /// </summary>
    internal static string? NoShareReason(MetricDiff total, DiffSettings settings)
    {
        if (total.Delta is not { } delta || total.Baseline is null) return ExplainedDiff.TinyDelta;
        if (Math.Abs(delta) <= settings.Tolerance * Math.Abs(total.Baseline.Mean)) return ExplainedDiff.TinyDelta;
        var judged = total.Noise.Significant ?? total.RunNoise.Significant;
        return judged == false ? ExplainedDiff.DeltaWithinNoise : null;
    }

    /// <summary>
    /// The launches' runs a CPU source covers (<see cref="RunAnalysis.CpuKnown"/>); a launch with none is left out,
    /// a side with none is null. The same lists when every run is covered.
    /// </summary>
    private static List<List<RunAnalysis>>? Covered(List<List<RunAnalysis>>? launches)
    {
        if (launches is null || launches.All(l => l.All(r => r.CpuKnown))) return launches;
        var covered = launches.Select(l => l.Where(r => r.CpuKnown).ToList()).Where(l => l.Count > 0).ToList();
        return covered.Count > 0 ? covered : null;
    }

    /// <summary>
    /// A column's per-operation values of one row over the runs that have it (as <see cref="Covered"/> does for CPU):
    /// a launch without any is left out, a side without any is null (shown as -).
    /// </summary>
    private static List<List<double>>? Having(List<List<RunAnalysis>>? launches, CaseColumn column)
    {
        var values = launches?.Select(l => l.Select(column.PerOperation).OfType<double>().ToList()).Where(l => l.Count > 0).ToList();
        return values is { Count: > 0 } ? values : null;
    }

    /// <summary>Each launch's per-operation values of one row; null for a side without the row.</summary>
    private static List<List<double>>? PerOperation(List<List<RunAnalysis>>? launches, string metric, Func<RunAnalysis, double> value) =>
        launches?.Select(l => l.Select(r => value(r) / PerOperationOf(metric, r)).ToList()).ToList();

    private static double MeanOfLaunchMeans(List<List<double>> launches) => launches.Average(l => l.Average());

    private static MetricDiff Diff(string name, List<List<double>>? baseline, List<List<double>>? trace, double alpha)
    {
        var b = baseline is null ? null : Side(baseline);
        var t = trace is null ? null : Side(trace);
        var bLaunches = baseline is null ? null : SampleStats.Of(baseline.Select(l => l.Average()).ToList());
        var tLaunches = trace is null ? null : SampleStats.Of(trace.Select(l => l.Average()).ToList());
        var runNoise = baseline is null || trace is null ? NoiseVerdict.OneSided
            : WelchTest.Compare(SampleStats.Of(baseline.SelectMany(l => l).ToList()), SampleStats.Of(trace.SelectMany(l => l).ToList()), alpha);
        var noise = bLaunches is null || tLaunches is null ? NoiseVerdict.OneSided
            : bLaunches.Runs < 2 || tLaunches.Runs < 2 ? (runNoise.Reason == NoiseVerdict.NotEnoughRuns ? runNoise : NoiseVerdict.NotJudgedOneLaunch)
            : WelchTest.Compare(bLaunches, tLaunches, alpha);
        return new MetricDiff(name, b, t, noise) { BaselineLaunches = bLaunches, TraceLaunches = tLaunches, RunNoise = runNoise };
    }

    /// <summary>A side of one metric: its runs counted, the mean of its launches' means, the runs' standard deviation.</summary>
    private static SampleStats Side(List<List<double>> launches)
    {
        var runs = SampleStats.Of(launches.SelectMany(l => l).ToList());
        return launches.Count == 1 ? runs : runs with { Mean = MeanOfLaunchMeans(launches) };
    }
}
