using EtwSerializerProfiler.Analyzer.Harness;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Timeline;
using Xunit;

namespace EtwSerializerProfiler.Tests.Analyzer.Harness;

/// <summary>
/// BenchmarkDotNet's engine events as the engine emits them (ids from BdnEngineEvents), each sequence with its exact
/// answer: runs per workload iteration, named by their case (jitting ones by the BenchmarkStart after them), stages,
/// the overhead median subtracted, the upper-outlier rule, and this project's own runs winning.
/// </summary>
public sealed class BdnIterationsTests
{
    private const int Thread = 7;
    private const string Case = "Bench.Json.Deserialize(N: 100)";
    private const int OverheadJitting = 3, WorkloadJitting = 5, OverheadActual = 11, WorkloadActual = 15;

    private readonly AnalysisDraft _analysis = new() { Trace = new TraceInfo { Path = "t", Format = "nettrace" } };
    private readonly RunWindows _windows;
    private readonly BdnIterations _bdn;

    public BdnIterationsTests()
    {
        _windows = new RunWindows(_analysis.RunList, _ => true, "(unnamed)");
        _bdn = new BdnIterations(_windows);
    }

    private void Event(int id, double ms, string? name = null, long? operations = null, bool ownRuns = false) =>
        _bdn.On(new BdnEvent(id, Thread, ms, name, operations), ownRuns);

    private void Iteration(int startId, double from, double to, long operations = 4)
    {
        Event(startId, from, operations: operations);
        Event(startId + 1, to);
    }

    [Fact]
    public void Jitting_iterations_before_BenchmarkStart_are_named_by_it_and_numbered_in_order()
    {
        Iteration(OverheadJitting, 1, 2);
        Iteration(WorkloadJitting, 3, 5);
        Assert.Equal(BdnIterations.CaseNotYetNamed, Assert.Single(_analysis.Runs).Key.Serializer);
        Event(BdnEngineEvents.BenchmarkStartId, 6, name: Case);
        Iteration(WorkloadActual, 10, 12, operations: 8);
        Event(BdnEngineEvents.BenchmarkStopId, 13);
        Iteration(WorkloadActual, 14, 15); // after BenchmarkStop: no case, so not yet named

        Assert.Equal(3, _bdn.Runs); // three workload iterations closed a window
        Assert.Equal(1, _bdn.OverheadIterations);
        var runs = _analysis.Runs;
        Assert.Equal(new RunKey("Deserialize", "Json", 100, 0), runs[0].Key);
        Assert.Equal("workload jitting", runs[0].Stage);
        Assert.True(runs[0].WarmupFromEvents);
        Assert.Equal(new RunKey("Deserialize", "Json", 100, 1), runs[1].Key);
        Assert.Equal(BdnEngineEvents.MeasuredStageLabel, runs[1].Stage);
        Assert.False(runs[1].WarmupFromEvents);
        Assert.Equal(8, runs[1].Operations);
        Assert.Equal(2.0, runs[1].DurationMs, 9);
        Assert.Equal(BdnIterations.CaseNotYetNamed, runs[2].Key.Serializer);
    }

    [Fact]
    public void The_mean_rule_subtracts_the_median_overhead_and_marks_upper_outliers()
    {
        Event(BdnEngineEvents.BenchmarkStartId, 0, name: Case);
        Iteration(OverheadActual, 1, 1.1);
        Iteration(OverheadActual, 2, 2.3);
        Iteration(OverheadActual, 3, 3.2);
        // Measured: 1, 1, 1, 1, 5 ms. Q1 = Q3 = 1, so the fence is 1: the 5 ms iteration is an upper outlier.
        double t = 10;
        foreach (var ms in new[] { 1.0, 1.0, 5.0, 1.0, 1.0 }) { Iteration(WorkloadActual, t, t + ms); t += 10; }

        Assert.True(_bdn.Finish(_analysis, _ => true, ownRunsSeen: false));
        Assert.Equal(RunSource.BenchmarkDotNet, _analysis.Trace.RunSource);
        Assert.Equal(3, _analysis.Trace.HarnessOverheadIterations);
        Assert.Equal(1, _analysis.Trace.HarnessOutliers);
        Assert.All(_analysis.Runs, r => Assert.Equal(0.2, r.OverheadMs, 9));
        var outlier = Assert.Single(_analysis.Runs, r => r.IsOutlier);
        Assert.Equal(5.0, outlier.DurationMs, 9);
        Assert.Equal(BdnEngineEvents.OutlierStageLabel, outlier.Stage);
        Assert.Equal(0.8, _analysis.Runs[0].Freeze().ResultMs, 9);
    }

    [Fact]
    public void The_projects_own_runs_win_and_filtered_cases_are_dropped()
    {
        Event(BdnEngineEvents.BenchmarkStartId, 0, name: Case);
        Iteration(WorkloadActual, 1, 2);
        Event(WorkloadActual, 3, ownRuns: true); // own runs seen: no window opens
        Event(WorkloadActual + 1, 4, ownRuns: true);
        Assert.Single(_analysis.Runs);

        Assert.False(_bdn.Finish(_analysis, _ => true, ownRunsSeen: true));
        Assert.Empty(_analysis.Runs);
        Assert.Contains(_analysis.Warnings, w => w.StartsWith("1 BenchmarkDotNet iteration(s) left out", StringComparison.Ordinal));

        var other = new AnalysisDraft { Trace = new TraceInfo { Path = "t", Format = "nettrace" } };
        var bdn = new BdnIterations(new RunWindows(other.RunList, _ => true, "(unnamed)"));
        bdn.On(new BdnEvent(BdnEngineEvents.BenchmarkStartId, Thread, 0, Case), false);
        bdn.On(new BdnEvent(WorkloadActual, Thread, 1, TotalOperations: 1), false);
        bdn.On(new BdnEvent(WorkloadActual + 1, Thread, 2), false);
        Assert.True(bdn.Finish(other, s => s != "Deserialize", ownRunsSeen: false));
        Assert.Empty(other.Runs);
    }

    [Fact]
    public void A_trace_without_iterations_is_not_BenchmarkDotNets()
    {
        Event(BdnEngineEvents.BenchmarkStartId, 0, name: Case);
        Assert.False(_bdn.Finish(_analysis, _ => true, ownRunsSeen: false));
        Assert.Equal(RunSource.None, _analysis.Trace.RunSource);
    }
}
