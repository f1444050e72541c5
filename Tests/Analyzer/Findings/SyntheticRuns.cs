using EtwSerializerProfiler.Analyzer.Findings;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Tests.Analyzer.Findings;

/// <summary>Hand-built runs for detector unit tests: every number a detector reads is set explicitly.</summary>
internal static class SyntheticRuns
{
    public static RunAnalysis Run(string serializer, string operation, int objects, int run, double durationMs, bool warmup = false, Action<RunDraft>? set = null)
    {
        var r = new RunDraft { Key = new RunKey(serializer, operation, objects, run), StartMs = 1000 * run, EndMs = 1000 * run + durationMs, IsWarmup = warmup };
        set?.Invoke(r);
        return r.Freeze();
    }

    /// <summary>A warm-up run plus <paramref name="measured"/> identical measured runs.</summary>
    public static IEnumerable<RunAnalysis> Group(string serializer, string operation, int objects, double durationMs, int measured = 2, Action<RunDraft>? set = null)
    {
        yield return Run(serializer, operation, objects, 0, durationMs * 3, warmup: true); // warm-ups carry nothing a detector may count
        for (var i = 1; i <= measured; i++) yield return Run(serializer, operation, objects, i, durationMs, set: set);
    }

    public static RunResult InProcess(RunAnalysis r, double cpuMs, int threads = 1) => InProcess(r.Key, r.DurationMs, r.GcPauseMs, cpuMs, threads);

    /// <summary>The same, for a run still being built (inside a <c>set</c> action).</summary>
    public static RunResult InProcess(RunDraft r, double cpuMs, int threads = 1) => InProcess(r.Key, r.DurationMs, r.GcPauseMs, cpuMs, threads);

    private static RunResult InProcess(RunKey key, double durationMs, double gcPauseMs, double cpuMs, int threads) => new()
    {
        Serializer = key.Serializer, Operation = key.Operation, Data = "BookShelf", Objects = key.Objects, Run = key.Run,
        DurationMs = durationMs, GcCount = GcCounts.Zero, GcPauseMs = gcPauseMs, AllocatedBytes = 0, CpuMs = cpuMs, Threads = threads,
    };

    public static TraceAnalysis Analysis(IEnumerable<RunAnalysis> runs) =>
        new() { Trace = new TraceInfo { Path = "synthetic", Format = "test" }, Runs = [.. runs], Process = new() };

    public static BenchmarkResults Results(string configuration = "Release", bool debugger = false) => new()
    {
        Runtime = ".NET 10", OperatingSystem = "test", Configuration = configuration, DebuggerAttached = debugger,
        ProcessId = 1, StartTimeUtc = DateTime.UnixEpoch, CommandLine = "",
    };

    public static IReadOnlyList<Finding> Detect(IFindingDetector detector, IEnumerable<RunAnalysis> runs, FindingThresholds? thresholds = null, BenchmarkResults? results = null) =>
        [.. detector.Detect(new FindingContext(Analysis(runs), results, thresholds ?? FindingThresholds.Default))];
}
