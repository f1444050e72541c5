namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>Where a trace's runs came from (docs/analyzer.md, "Run windows"); written by its <see cref="WireNameAttribute"/>.</summary>
public enum RunSource
{
    /// <summary>No runs: the trace is analyzed whole, thread by thread.</summary>
    [WireName("none")] None,
    /// <summary>The benchmark's run EventSource named every run (with or without the marker's waits).</summary>
    [WireName("run-events")] RunEvents,
    /// <summary>Only the marker's waits, found by their stacks: runs named afterwards from stack tags (<see cref="InferredRunNames"/>).</summary>
    [WireName("marker-waits")] MarkerWaits,
    /// <summary>BenchmarkDotNet's engine events: each measured iteration of a benchmark case is a run.</summary>
    [WireName("benchmarkdotnet")] BenchmarkDotNet,
}

/// <summary>
/// How runs found without their names were named: each from the serializer stack tag (Serialize\X, Deserialize\X)
/// its samples fall in most, a run without such samples from the next run of the same operation, then batches of
/// consecutive runs of one serializer and operation, whose warm-ups are inferred (Harness.InferredWarmups, with
/// <paramref name="MeasuredPerCase"/> the estimated measured runs per case).
/// </summary>
public sealed record InferredRunNames(int Runs, int BySamples, int ByNeighbour, int Unnamed, int Batches, int MeasuredPerCase);

/// <summary>The text wording of <see cref="RunSource"/> (its wire name is <see cref="WireNames"/>').</summary>
internal static class RunSourceText
{

    /// <summary>The "Runs:" line of the text outputs.</summary>
    public static string Line(TraceAnalysis analysis)
    {
        var runs = analysis.Runs;
        var tags = $"stack tags: {analysis.Trace.StackTagsFile ?? "none"}";
        switch (analysis.Trace.RunSource)
        {
            case RunSource.BenchmarkDotNet:
                var cases = runs.Select(r => (r.Key.Serializer, r.Key.Operation, r.Key.Objects)).Distinct().Count();
                var measured = runs.Count(r => r.IsMeasured);
                var warmups = runs.Count(r => r.IsWarmup);
                var overheadPerOp = runs.Where(r => r.IsMeasured && r.OverheadMs > 0).Select(r => r.OverheadMs / r.Operations).DefaultIfEmpty(0).Max();
                var outliers = analysis.Trace.HarnessOutliers;
                return $"Runs: {runs.Count} BenchmarkDotNet iterations of {cases} benchmark case(s): {measured} measured (workload actual), " +
                    (outliers > 0 ? $"{outliers} upper outlier(s) shown but not averaged (BenchmarkDotNet's default outlier rule: above Q3 + 1.5 IQR of the case's measured iterations), " : "") +
                    $"{warmups} warm-ups (workload jitting, pilot and warm-up); {analysis.Trace.HarnessOverheadIterations} overhead iterations left out" +
                    (overheadPerOp > 0 ? $", the median overhead-actual iteration subtracted from each measured one ({overheadPerOp * 1e6:F2} ns per operation at most), as BenchmarkDotNet's Mean does; per operation = (iteration time - overhead) / its operations. "
                        : "; per operation = iteration time / its operations (no overhead to subtract: BenchmarkDotNet 0.15 measures none unless EvaluateOverhead is set). ") +
                    "A trace from [EventPipeProfiler] with its default extra run holds a second, profiled run of the benchmark whose figures BenchmarkDotNet discards: " +
                    $"its summary comes from the untraced run before, so the two differ by the profiler's cost and run-to-run noise (docs/analyzer.md, BenchmarkDotNet runs); {tags}";
            case RunSource.MarkerWaits when analysis.Trace.InferredNames is { } n:
                return $"Runs: {runs.Count} from marker waits, names inferred from stack tags ({n.BySamples} by their samples, {n.ByNeighbour} from the next run of the same operation{(n.Unnamed > 0 ? $", {n.Unnamed} left unnamed" : "")}); " +
                    $"warm-ups inferred from {n.Batches} batch(es) of consecutive runs (measured runs taken as the last {n.MeasuredPerCase} of a case's batch); N unknown (?); durations per run (operations per run are not in the trace); {tags}";
            default:
                return $"Runs: {runs.Count} ({runs.Count(r => r.Source == WindowSource.MarkerWait)} from marker waits); {tags}";
        }
    }
}
