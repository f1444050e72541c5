using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Tests.Support;

/// <summary>
/// A run window's edges are RunBegin and RunEnd, written just outside the benchmark's Stopwatch reads; the benchmark
/// also times from just before RunBegin to just after RunEnd. Writing an event takes microseconds, unless the worker
/// is preempted or waits for an EventPipe buffer right then (4 ms once, with both cores busy elsewhere), which the
/// outer Stopwatch sees too. So the window lies between the two, within the promised 2% or 0.5 ms.
/// Since RunEnd carries the Stopwatch's reads (version 1), the analyzer puts the window exactly on them: then it is
/// the Stopwatch's own interval, to the clock conversion's rounding (measured: at most 2.2e-12 ms over 142 runs of
/// YamlDotNet, Reflection and DataContract at N=1,000, load average 22 on 2 cores, while the events' edges were
/// 0.02-28.9 ms outside the reads); 0.001 ms is allowed.
/// </summary>
public static class WindowTruth
{
    public const double PinnedToleranceMs = 0.001;

    public static void AssertAgrees(RunAnalysis run) =>
        AssertAgrees(run, run.InProcess!.DurationMs, run.InProcess.OuterDurationMs ?? run.InProcess.DurationMs);

    /// <param name="truth">The Stopwatch between RunBegin and RunEnd.</param>
    /// <param name="outer">The Stopwatch around them.</param>
    public static void AssertAgrees(RunAnalysis run, double truth, double outer)
    {
        if (run.PinnedToStopwatch)
        {
            Assert.True(Math.Abs(run.DurationMs - truth) <= PinnedToleranceMs, $"{run.Key}: window {run.DurationMs:F6} ms vs Stopwatch {truth:F6} ms, pinned to its reads");
            return;
        }
        var tolerance = Math.Max(0.5, truth * 0.02);
        Assert.True(run.DurationMs >= truth - tolerance && run.DurationMs <= outer + tolerance,
            $"{run.Key}: window {run.DurationMs:F3} ms vs Stopwatch {truth:F3} ms (with the events' writes {outer:F3} ms)");
    }
}
