using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Analyzer.Harness;

/// <summary>One BenchmarkDotNet engine event, its payload read: the benchmark's name (BenchmarkStart), the workload calls (an iteration's start).</summary>
internal readonly record struct BdnEvent(int Id, int ThreadId, double Ms, string? BenchmarkName = null, long? TotalOperations = null);

/// <summary>
/// Runs from another harness: BenchmarkDotNet's engine events (<see cref="BdnEngineEvents"/>). Every workload
/// iteration is a run on the thread that ran it, opened in the pass's <see cref="RunWindows"/>, named after its
/// benchmark case (<see cref="BdnBenchmarkName"/>) and labelled with its stage: the measured ones (workload actual) are
/// the case's measured runs, the jitting, pilot and warm-up ones its warm-ups. Overhead iterations run an empty method
/// in place of the workload: counted, not runs, their durations kept for BenchmarkDotNet's result rule
/// (<see cref="Finish"/>). The extra iteration BenchmarkDotNet runs afterwards for its GC statistics has no events.
/// A trace with this project's own runs keeps those.
/// </summary>
/// <param name="harness">What the diagnoser that recorded the trace said of it (manifest harness), or null.</param>
internal sealed class BdnIterations(RunWindows windows, Common.HarnessInfo? harness = null)
{
    private readonly BdnBenchmarkName? _knownCase = harness is null ? null : BdnBenchmarkName.Parse(harness.Case);

    /// <summary>Placeholder name of iterations seen before their case's BenchmarkStart (jitting; a trace attached late).</summary>
    public const string CaseNotYetNamed = "(BenchmarkDotNet case)";

    private readonly Dictionary<int, BdnBenchmarkName> _caseByThread = [];
    private readonly Dictionary<int, List<RunDraft>> _namelessByThread = [];
    private readonly Dictionary<RunKey, int> _iterations = [];
    /// <summary>Overhead-actual iterations open per thread (their start), and their durations per case (keyed by run 0's key).</summary>
    private readonly Dictionary<int, double> _overheadOpen = [];
    private readonly Dictionary<RunKey, List<double>> _overheadMs = [];

    /// <summary>Workload iterations that closed a window.</summary>
    public int Runs { get; private set; }

    /// <summary>Overhead iterations (an empty method called as often as the workload).</summary>
    public int OverheadIterations { get; private set; }

    /// <param name="ownRunsSeen">The trace has this project's own runs: iterations open no windows then.</param>
    public void On(BdnEvent e, bool ownRunsSeen)
    {
        if (e.Id == BdnEngineEvents.BenchmarkStartId) BenchmarkStart(e.ThreadId, e.BenchmarkName ?? "");
        else if (e.Id == BdnEngineEvents.BenchmarkStopId) _caseByThread.Remove(e.ThreadId);
        else if (BdnEngineEvents.StartStage(e.Id) is { } stage) { if (!ownRunsSeen) IterationStart(e, stage); }
        else if (e.Id == BdnEngineEvents.OverheadActualStartId + 1 && _overheadOpen.Remove(e.ThreadId, out var began)
            && _caseByThread.GetValueOrDefault(e.ThreadId) is { } overheadCase)
        {
            var key = overheadCase.Key(0);
            if (!_overheadMs.TryGetValue(key, out var list)) _overheadMs[key] = list = [];
            list.Add(e.Ms - began);
        }
        else if (BdnEngineEvents.IsIterationStop(e.Id) && windows.HarnessIterationStop(e.ThreadId, e.Ms)) Runs++;
    }

    private void BenchmarkStart(int threadId, string benchmarkName)
    {
        var name = BdnBenchmarkName.Parse(benchmarkName);
        _caseByThread[threadId] = name;
        // The case's jitting iterations ran just before its BenchmarkStart.
        if (!_namelessByThread.Remove(threadId, out var nameless)) return;
        foreach (var run in nameless) run.Key = NextKey(name);
    }

    private void IterationStart(BdnEvent e, BdnEngineEvents.Stage stage)
    {
        if (!stage.Workload)
        {
            OverheadIterations++;
            if (stage.StartId == BdnEngineEvents.OverheadActualStartId) _overheadOpen[e.ThreadId] = e.Ms;
            return;
        }
        var name = _caseByThread.GetValueOrDefault(e.ThreadId) ?? _knownCase;
        var key = name is null ? new RunKey(CaseNotYetNamed, "", 0, 0) : NextKey(name);
        var run = windows.HarnessIterationStart(new RunStarted(key, "", 0, e.ThreadId, e.Ms, !stage.Measured, Math.Max(1L, e.TotalOperations ?? 1L)));
        run.Stage = stage.Label;
        if (name is not null) return;
        if (!_namelessByThread.TryGetValue(e.ThreadId, out var list)) _namelessByThread[e.ThreadId] = list = [];
        list.Add(run);
    }

    /// <summary>Iterations of one case are numbered in the order they ran, warm-ups and measured together (as the benchmark numbers its runs).</summary>
    private RunKey NextKey(BdnBenchmarkName name)
    {
        var first = name.Key(0);
        var index = _iterations.GetValueOrDefault(first);
        _iterations[first] = index + 1;
        return name.Key(index);
    }

    /// <summary>
    /// At the end of the pass: BenchmarkDotNet's iterations are the runs only when the trace has none of this
    /// project's own (a program can use both; the benchmark's marked runs are the better windows).
    /// </summary>
    /// <returns>Whether BenchmarkDotNet's iterations are the trace's runs.</returns>
    public bool Finish(AnalysisDraft analysis, Func<string, bool> includes, bool ownRunsSeen)
    {
        if (Runs == 0) return false;
        if (ownRunsSeen)
        {
            var dropped = analysis.RunList.RemoveAll(r => r.Source == WindowSource.HarnessEvents);
            if (dropped > 0) analysis.WarningList.Add($"{dropped} BenchmarkDotNet iteration(s) left out: this trace has the benchmark's own runs, which are used");
            return false;
        }
        analysis.RunList.RemoveAll(r => !includes(r.Key.Serializer));
        analysis.Trace = analysis.Trace with { RunSource = RunSource.BenchmarkDotNet, HarnessOverheadIterations = OverheadIterations };
        ApplyResultRule(analysis);
        return true;
    }

    /// <summary>
    /// What BenchmarkDotNet's Mean is computed from (RunResults.GetWorkloadResultMeasurements, 0.13-0.15): the
    /// workload-actual iterations without the upper outliers (its default OutlierMode.RemoveUpper: above
    /// Q3 + 1.5 IQR of their times, quartiles as perfolizer's default estimator takes them, Hyndman-Fan type 7), each
    /// less the median overhead-actual iteration (an empty method called as often). Applied to the trace's own
    /// iterations, so the table's mean is BenchmarkDotNet's statistic of the run the trace holds.
    /// </summary>
    private void ApplyResultRule(AnalysisDraft analysis)
    {
        var outliers = 0;
        foreach (var g in analysis.Runs.Where(r => r.Stage == BdnEngineEvents.MeasuredStageLabel).GroupBy(r => r.Key with { Run = 0 }))
        {
            var overhead = harness is not null ? harness.OverheadNs / 1e6 : _overheadMs.TryGetValue(g.Key, out var o) && o.Count > 0 ? BdnStatistics.Median(o) : 0;
            var fence = BdnStatistics.UpperFence([.. g.Select(r => r.DurationMs)]);
            var index = 0;
            foreach (var r in g)
            {
                r.OverheadMs = overhead;
                // BenchmarkDotNet's own verdict on its own clock when the diagnoser passed it on; else its rule on the trace's.
                if (harness is not null ? !harness.DroppedIterations.Contains(index++) : r.DurationMs <= fence) continue;
                r.IsOutlier = true;
                r.Stage = BdnEngineEvents.OutlierStageLabel;
                outliers++;
            }
        }
        analysis.Trace = analysis.Trace with { HarnessOutliers = outliers };
    }
}
