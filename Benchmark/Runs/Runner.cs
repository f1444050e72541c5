using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>A way of running the benchmark (steady-state runs, first calls): what it measured, skipped and failed.</summary>
public abstract class Runner
{
    public List<RunResult> Results { get; } = [];
    public List<UnsupportedSerializer> Unsupported { get; } = [];
    public List<string> Errors { get; } = [];
    /// <summary>How each case was warmed up (null for a runner without warm-up, such as first calls).</summary>
    public List<WarmupResult>? Warmups { get; protected set; }
    /// <summary>--heap snapshot points reached (null when none were requested).</summary>
    public List<HeapSnapshotInfo>? HeapSnapshots { get; protected set; }

    /// <summary>--tracing-cost: each case's untraced and traced blocks (null when not asked or not measured).</summary>
    public List<TracingCostCase>? TracingCostCases { get; protected set; }
    /// <summary>Why the tracing-cost blocks stopped early or did not run.</summary>
    public string? TracingCostProblem { get; protected set; }

    public abstract void Run(CancellationToken cancel);

    public static Runner For(BenchmarkOptions options, IProgress<string>? progress) =>
        options.Test == TestMode.FirstCall ? new FirstCallRunner(options, progress) : new BenchmarkRunner(options, progress);
}
