using EtwSerializerProfiler.Analyzer.Harness;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Timeline;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>
    /// Runs from another harness: BenchmarkDotNet's engine events. Every workload iteration is a run on the thread that
    /// ran it, named after its benchmark case (<see cref="BdnBenchmarkName"/>) and labelled with its stage: the
    /// measured ones (workload actual) are the case's measured runs, the jitting, pilot and warm-up ones its warm-ups.
    /// Overhead iterations run an empty method in place of the workload: counted, not runs. The extra iteration
    /// BenchmarkDotNet runs afterwards for its GC statistics has no events. A trace with this project's own runs keeps
    /// those.
    /// </summary>
    private sealed partial class PassState
    {
        /// <summary>Placeholder name of iterations seen before their case's BenchmarkStart (jitting; a trace attached late).</summary>
        private const string CaseNotYetNamed = "(BenchmarkDotNet case)";

        private readonly Dictionary<int, BdnBenchmarkName> _bdnCaseByThread = [];
        private readonly Dictionary<int, List<RunAnalysis>> _bdnNamelessByThread = [];
        private readonly Dictionary<RunKey, int> _bdnIterations = [];
        /// <summary>Overhead-actual iterations open per thread (their start), and their durations per case (keyed by run 0's key).</summary>
        private readonly Dictionary<int, double> _bdnOverheadOpen = [];
        private readonly Dictionary<RunKey, List<double>> _bdnOverheadMs = [];
        private int _bdnRuns, _bdnOverhead;

        private bool OwnRunsSeen => _windows.SawRunEvents || _windows.Unnamed > 0;

        private void OnBdnEvent(TraceEvent e)
        {
            // An ETW trace holds the whole machine: the process that runs the benchmarks is the one analyzed.
            if (_processId == 0) _processId = e.ProcessID;
            var id = (int)e.ID;
            if (id == BdnEngineEvents.BenchmarkStartId) OnBdnBenchmarkStart(e);
            else if (id == BdnEngineEvents.BenchmarkStopId) _bdnCaseByThread.Remove(e.ThreadID);
            else if (BdnEngineEvents.StartStage(id) is { } stage && !OwnRunsSeen) OnBdnIterationStart(e, stage);
            else if (id == BdnEngineEvents.OverheadActualStartId + 1 && _bdnOverheadOpen.Remove(e.ThreadID, out var began)
                && _bdnCaseByThread.GetValueOrDefault(e.ThreadID) is { } overheadCase)
            {
                var key = overheadCase.Key(0);
                if (!_bdnOverheadMs.TryGetValue(key, out var list)) _bdnOverheadMs[key] = list = [];
                list.Add(e.TimeStampRelativeMSec - began);
            }
            else if (BdnEngineEvents.IsIterationStop(id) && _windows.HarnessIterationStop(e.ThreadID, e.TimeStampRelativeMSec))
                _bdnRuns++;
        }

        private void OnBdnBenchmarkStart(TraceEvent e)
        {
            var name = BdnBenchmarkName.Parse(Str(e, BdnEngineEvents.Fields.BenchmarkName));
            _bdnCaseByThread[e.ThreadID] = name;
            // The case's jitting iterations ran just before its BenchmarkStart.
            if (!_bdnNamelessByThread.Remove(e.ThreadID, out var nameless)) return;
            foreach (var run in nameless) run.Key = NextBdnKey(name);
        }

        private void OnBdnIterationStart(TraceEvent e, BdnEngineEvents.Stage stage)
        {
            if (!stage.Workload)
            {
                _bdnOverhead++;
                if (stage.StartId == BdnEngineEvents.OverheadActualStartId) _bdnOverheadOpen[e.ThreadID] = e.TimeStampRelativeMSec;
                return;
            }
            var name = _bdnCaseByThread.GetValueOrDefault(e.ThreadID);
            var key = name is null ? new RunKey(CaseNotYetNamed, "", 0, 0) : NextBdnKey(name);
            var operations = e.PayloadByName(BdnEngineEvents.Fields.TotalOperations) is { } ops
                ? Math.Max(1L, Convert.ToInt64(ops, System.Globalization.CultureInfo.InvariantCulture)) : 1L;
            var run = _windows.HarnessIterationStart(new RunStarted(key, "", 0, e.ThreadID, e.TimeStampRelativeMSec, !stage.Measured, operations));
            run.Stage = stage.Label;
            if (name is null)
            {
                if (!_bdnNamelessByThread.TryGetValue(e.ThreadID, out var list)) _bdnNamelessByThread[e.ThreadID] = list = [];
                list.Add(run);
            }
        }

        /// <summary>Iterations of one case are numbered in the order they ran, warm-ups and measured together (as the benchmark numbers its runs).</summary>
        private RunKey NextBdnKey(BdnBenchmarkName name)
        {
            var first = name.Key(0);
            var index = _bdnIterations.GetValueOrDefault(first);
            _bdnIterations[first] = index + 1;
            return name.Key(index);
        }

        /// <summary>
        /// Called at the end of the pass: BenchmarkDotNet's iterations are the runs only when the trace has none of this
        /// project's own (a program can use both; the benchmark's marked runs are the better windows).
        /// </summary>
        /// <returns>Whether BenchmarkDotNet's iterations are the trace's runs.</returns>
        private bool FinishBdnRuns()
        {
            if (_bdnRuns == 0) return false;
            if (OwnRunsSeen)
            {
                var dropped = analysis.Runs.RemoveAll(r => r.Source == WindowSource.HarnessEvents);
                if (dropped > 0) analysis.Warnings.Add($"{dropped} BenchmarkDotNet iteration(s) left out: this trace has the benchmark's own runs, which are used");
                return false;
            }
            analysis.Runs.RemoveAll(r => !options.Includes(r.Key.Serializer));
            analysis.Trace.RunSource = RunSource.BenchmarkDotNet;
            analysis.Trace.HarnessOverheadIterations = _bdnOverhead;
            ApplyBdnResultRule();
            return true;
        }

        /// <summary>
        /// What BenchmarkDotNet's Mean is computed from (RunResults.GetWorkloadResultMeasurements, 0.13-0.15): the
        /// workload-actual iterations without the upper outliers (its default OutlierMode.RemoveUpper: above
        /// Q3 + 1.5 IQR of their times, quartiles as perfolizer's default estimator takes them, Hyndman-Fan type 7), each
        /// less the median overhead-actual iteration (an empty method called as often). Applied to the trace's own
        /// iterations, so the table's mean is BenchmarkDotNet's statistic of the run the trace holds.
        /// </summary>
        private void ApplyBdnResultRule()
        {
            foreach (var g in analysis.Runs.Where(r => r.Stage == BdnEngineEvents.MeasuredStageLabel).GroupBy(r => r.Key with { Run = 0 }))
            {
                var overhead = _bdnOverheadMs.TryGetValue(g.Key, out var o) && o.Count > 0 ? BdnStatistics.Median(o) : 0;
                var fence = BdnStatistics.UpperFence([.. g.Select(r => r.DurationMs)]);
                foreach (var r in g)
                {
                    r.OverheadMs = overhead;
                    if (r.DurationMs <= fence) continue;
                    r.IsOutlier = true;
                    r.Stage = BdnEngineEvents.OutlierStageLabel;
                    analysis.Trace.HarnessOutliers++;
                }
            }
        }
    }
}
