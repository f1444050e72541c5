using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Engines;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Mathematics;
using BenchmarkDotNet.Reports;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Harness;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Reports;

namespace EtwSerializerProfiler.BenchmarkDotNet;

/// <summary>
/// One benchmark's answer from its trace: the case's figures per operation over the iterations BenchmarkDotNet keeps
/// (the analyzer applies its result rule: upper outliers out, the overhead taken off), its verdict, and what tracing
/// cost it, read inside the same process (<see cref="TracingCost"/>).
/// </summary>
internal sealed record CaseAnswer
{
    public required string Folder { get; init; }
    public CaseSummary? Case { get; init; }
    public string? TopCause { get; init; }
    public double? TracingCostPercent { get; init; }
    /// <summary>The verdict's lines, or the one line that says why there is none.</summary>
    public IReadOnlyList<string> Lines { get; init; } = [];
    /// <summary>The CPU source is EventPipe's safe-point sampler (no kernel session): said once in the log (<see cref="SamplingNote"/>).</summary>
    public bool EventPipeSampled { get; init; }
    /// <summary>Why the trace has no kernel session (the manifest's reason), when it has none.</summary>
    public string? NoKernelReason { get; init; }

    public static CaseAnswer From(CaseRecording recording, DiagnoserResults results)
    {
        recording.Stop();
        if (recording.Problem is { } problem || !Directory.Exists(recording.FolderPath))
            return new CaseAnswer { Folder = recording.FolderPath, Lines = [$"{recording.BenchmarkName}: not traced ({recording.Problem ?? "no trace folder"})"] };
        recording.Describe(Harness(recording.BenchmarkName, results));
        TraceAnalysis analysis;
        try
        {
            using var input = TraceInput.Open(recording.FolderPath);
            analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
        }
        catch (Exception ex) when (ex is BadInputException or IOException or InvalidDataException)
        {
            // One line in the log and "?" in the columns: BenchmarkDotNet's own results are never lost to the trace.
            return new CaseAnswer { Folder = recording.FolderPath, Lines = [$"{recording.BenchmarkName}: the trace could not be analyzed ({ex.Message})"] };
        }
        var verdict = Verdicts.Of(analysis).FirstOrDefault();
        var top = verdict?.Causes.FirstOrDefault();
        return new CaseAnswer
        {
            Folder = recording.FolderPath,
            Case = verdict?.Case,
            TopCause = top is null ? null : $"{top.Name} {Fmt.Pct(top.Share)}",
            TracingCostPercent = TracingCost(results.Measurements),
            Lines = verdict is null ? [$"{recording.BenchmarkName}: no measured iteration in the trace ({string.Join("; ", analysis.Warnings)})"] : Verdicts.Lines([verdict]),
            EventPipeSampled = analysis.Trace.CpuSource == CpuSourceKind.EventPipe,
            NoKernelReason = recording.NoKernelReason,
        };
    }

    /// <summary>
    /// One line for all the benchmarks whose CPU came from EventPipe's sampler (no kernel session), or null: why there is
    /// no kernel session, that the samples land at safe points, how many of each benchmark's stop at a GC poll, and how
    /// far such samples were measured to misread (docs/analyzer.md#accuracy).
    /// </summary>
    public static string? SamplingNote(IReadOnlyList<CaseAnswer> answers)
    {
        var sampled = answers.Where(a => a.EventPipeSampled).ToList();
        if (sampled.Count == 0) return null;
        var why = string.Join("; ", sampled.Select(a => a.NoKernelReason ?? "perf missing or not permitted").Distinct());
        var polls = sampled.Select(a => a.Case?.GcPollLeafShare).OfType<double>().ToList();
        var atPolls = polls.Count switch
        {
            0 => "",
            1 => $": {Fmt.Pct(polls[0])} of its samples stop at a GC poll",
            _ when Fmt.Pct(polls.Min()) == Fmt.Pct(polls.Max()) => $": {Fmt.Pct(polls[0])} of each benchmark's samples stop at a GC poll",
            _ => $": {Fmt.Pct(polls.Min())}-{Fmt.Pct(polls.Max())} of each benchmark's samples stop at a GC poll",
        };
        return $"esp: no kernel session ({why}): CPU/op and the causes of {sampled.Count} benchmark(s) come from EventPipe's sampler, "
            + $"whose samples are safe-point biased{atPolls}; measured, such samples read CPU 17% to 149% high and tag shares up to 25 points off "
            + "(docs/analyzer.md#accuracy)";
    }

    /// <summary>
    /// BenchmarkDotNet's word on the traced iterations, from its own measurements of them: the measured iterations its
    /// outlier rule drops (RunResults: Tukey's fences on each iteration's nanoseconds, the job's OutlierMode) and the
    /// median overhead iteration it takes off each.
    /// </summary>
    private static HarnessInfo Harness(string benchmarkName, DiagnoserResults results)
    {
        var mode = results.BenchmarkCase.Job.ResolveValue(AccuracyMode.OutlierModeCharacteristic, EngineResolver.Instance);
        var actual = results.Measurements.Where(m => m.IterationMode == IterationMode.Workload && m.IterationStage == IterationStage.Actual).ToList();
        var overhead = results.Measurements.Where(m => m.IterationMode == IterationMode.Overhead && m.IterationStage == IterationStage.Actual).Select(m => m.Nanoseconds).ToList();
        var statistics = actual.Count == 0 ? null : new Statistics(actual.Select(m => m.Nanoseconds));
        var dropped = statistics is null ? [] : actual.Select((m, i) => (m, i)).Where(x => statistics.IsActualOutlier(x.m.Nanoseconds, mode)).Select(x => x.i).ToList();
        return new HarnessInfo(benchmarkName, dropped, overhead.Count == 0 ? 0 : BdnStatistics.Median(overhead));
    }

    /// <summary>The columns' values; NaN (shown "?") where the trace has no answer.</summary>
    public IEnumerable<Metric> Metrics()
    {
        var c = Case;
        yield return new Metric(EspMetrics.CpuPerOp, c is { CpuKnown: true } ? c.CpuMs * 1e6 : double.NaN);
        yield return new Metric(EspMetrics.GcPausePerOp, c is null ? double.NaN : c.GcPauseMs * 1e6);
        yield return new Metric(EspMetrics.AllocatedPerOp, c?.AllocatedBytes ?? double.NaN);
        yield return new Metric(EspMetrics.Reflection, c is null ? double.NaN : 100 * c.ReflectionShare);
        yield return new Metric(EspMetrics.ExceptionsPerOp, c?.Exceptions ?? double.NaN);
        yield return new Metric(EspMetrics.TracingCost, TracingCostPercent ?? double.NaN);
    }

    /// <summary>
    /// What tracing cost the benchmark, inside its own process: the measured iterations (traced) against the warm-up
    /// iterations just before them (untraced: the recording starts at BeforeActualRun), each as time per operation,
    /// median against median over the warm-ups' second half (the first may still be settling). Null (shown "?") with
    /// fewer than two warm-ups or four measured iterations, or when those warm-ups lie more than 10% apart: then they
    /// had not settled, and the difference would be the warm-up's, not tracing's. A launch against another launch is
    /// never used: launches differ more.
    /// </summary>
    public static double? TracingCost(IReadOnlyList<Measurement> measurements)
    {
        static double PerOp(Measurement m) => m.Nanoseconds / Math.Max(1, m.Operations);
        var warm = measurements.Where(m => m.IterationMode == IterationMode.Workload && m.IterationStage == IterationStage.Warmup).Select(PerOp).ToList();
        var actual = measurements.Where(m => m.IterationMode == IterationMode.Workload && m.IterationStage == IterationStage.Actual).Select(PerOp).ToList();
        if (warm.Count < 2 || actual.Count < 4) return null;
        var settled = warm.Skip(warm.Count / 2).ToList();
        var untraced = BdnStatistics.Median(settled);
        if (untraced <= 0 || settled.Max() > 1.10 * settled.Min()) return null;
        return 100 * (BdnStatistics.Median(actual) / untraced - 1);
    }

}
