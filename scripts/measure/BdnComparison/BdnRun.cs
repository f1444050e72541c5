using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Engines;
using BenchmarkDotNet.Filters;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;
using EtwSerializerProfiler.Benchmark.Data;
using Perfolizer.Horology;

namespace EtwSerializerProfiler.Perf.BdnComparison;

/// <summary>Runs <see cref="SerializerBenchmarks"/> for one selection and turns BenchmarkDotNet's summary into <see cref="BdnResults"/>.</summary>
public static class BdnRun
{
    public static BdnResults Run(RunOptions options, TextWriter log)
    {
        Selection.Current = options.Selection;
        var errors = new List<string>();
        foreach (var s in options.Selection.Serializers)
        {
            if (Selection.UnsupportedReason(s, options.Selection.Data) is { } why) errors.Add($"{s.Name}: not run: {why}");
        }
        var job = JobFor(options);
        var config = DefaultConfig.Instance
            .AddJob(job)
            .AddFilter(new SimpleFilter(Wanted))
            .WithArtifactsPath(options.ArtifactsPath);
        var summary = BenchmarkRunner.Run(typeof(SerializerBenchmarks), config);
        if (summary.HasCriticalValidationErrors)
        {
            errors.AddRange(summary.ValidationErrors.Where(e => e.IsCritical).Select(e => "BenchmarkDotNet: " + e.Message));
        }
        var cases = new List<BdnCase>();
        foreach (var report in summary.Reports)
        {
            var c = ToCase(report);
            if (c is null) errors.Add($"{Describe(report.BenchmarkCase)}: no result (see the BenchmarkDotNet log in {options.ArtifactsPath})");
            else cases.Add(c);
        }
        log.WriteLine($"BenchmarkDotNet: {cases.Count} case(s) measured, {errors.Count} error(s)");
        return new BdnResults
        {
            BenchmarkDotNetVersion = typeof(BenchmarkRunner).Assembly.GetName().Version?.ToString(3) ?? "?",
            Runtime = System.Runtime.InteropServices.RuntimeInformation.FrameworkDescription,
            Toolchain = options.InProcess ? "InProcessEmit" : "default",
            Job = job.DisplayInfo,
            Cases = cases,
            Errors = errors,
        };
    }

    private static Job JobFor(RunOptions options)
    {
        // One launch per run: the comparison script starts several runs itself, interleaved with the benchmark's.
        var job = Job.Default.WithLaunchCount(1).WithId("BdnComparison");
        if (options.InProcess) job = job.WithToolchain(InProcessEmitToolchain.Instance);
        if (options.WarmupCount is { } w) job = job.WithWarmupCount(w);
        if (options.IterationCount is { } i) job = job.WithIterationCount(i);
        if (options.IterationTimeMs is { } t) job = job.WithIterationTime(TimeInterval.FromMilliseconds(t));
        return job;
    }

    private static bool Wanted(BenchmarkCase c)
    {
        var selection = Selection.Current;
        var serializer = selection.Serializers.First(s => s.Name == (string)c.Parameters[nameof(SerializerBenchmarks.Serializer)]);
        return selection.Operations.Contains(OperationOf(c))
            && Selection.UnsupportedReason(serializer, selection.Data) is null;
    }

    private static string OperationOf(BenchmarkCase c) => c.Descriptor.WorkloadMethod.Name.ToLowerInvariant();

    private static string Describe(BenchmarkCase c) =>
        $"{c.Parameters[nameof(SerializerBenchmarks.Serializer)]} {OperationOf(c)} N={c.Parameters[nameof(SerializerBenchmarks.N)]}";

    private static BdnCase? ToCase(BenchmarkReport report)
    {
        var stats = report.ResultStatistics;
        if (!report.Success || stats is null) return null;
        var c = report.BenchmarkCase;
        var all = report.AllMeasurements;
        var actual = all.Where(m => m.Is(IterationMode.Workload, IterationStage.Actual)).ToList();
        const double NsPerMs = 1e6;
        return new BdnCase
        {
            Serializer = (string)c.Parameters[nameof(SerializerBenchmarks.Serializer)],
            Operation = OperationOf(c),
            Data = DataFactory.TypeOf((DataKind)c.Parameters[nameof(SerializerBenchmarks.Data)]).Name,
            Objects = (int)c.Parameters[nameof(SerializerBenchmarks.N)],
            MeanMs = stats.Mean / NsPerMs,
            MedianMs = stats.Median / NsPerMs,
            MinMs = stats.Min / NsPerMs,
            MaxMs = stats.Max / NsPerMs,
            StdDevMs = stats.StandardDeviation / NsPerMs,
            OperationsPerIteration = actual.Count > 0 ? actual[0].Operations : 0,
            WarmupIterations = all.Count(m => m.Is(IterationMode.Workload, IterationStage.Warmup)),
            MeasuredIterations = actual.Count,
            ResultMs = report.GetResultRuns().Select(m => m.GetAverageTime().Nanoseconds / NsPerMs).ToList(),
            ActualMs = actual.Select(m => m.GetAverageTime().Nanoseconds / NsPerMs).ToList(),
            WorkloadIterations = all.Count(m => m.IterationMode == IterationMode.Workload && m.IterationStage is IterationStage.Pilot or IterationStage.Warmup or IterationStage.Actual),
            OverheadIterations = all.Count(m => m.IterationMode == IterationMode.Overhead && m.IterationStage != IterationStage.Result),
        };
    }
}
