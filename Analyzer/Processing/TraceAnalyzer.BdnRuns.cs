using EtwSerializerProfiler.Analyzer.Harness;
using EtwSerializerProfiler.Analyzer.Model;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>
    /// Runs from another harness: BenchmarkDotNet's engine events. Each measured iteration (workload, actual stage)
    /// is a run on the thread that ran it, named after its benchmark case (<see cref="BdnBenchmarkName"/>); pilot,
    /// warm-up, overhead and jitting iterations are not runs, and neither is the extra iteration BenchmarkDotNet
    /// runs afterwards for its GC statistics (it has no events). A trace with this project's own runs keeps those.
    /// </summary>
    private sealed partial class PassState
    {
        private readonly Dictionary<int, string> _bdnCaseByThread = [];
        private readonly Dictionary<RunKey, int> _bdnIterations = [];
        private int _bdnRuns;

        private bool OwnRunsSeen => _sawRunEvents || _unnamed > 0;

        private void OnBdnEvent(TraceEvent e)
        {
            // An ETW trace holds the whole machine: the process that runs the benchmarks is the one analyzed.
            if (_processId == 0) _processId = e.ProcessID;
            switch ((int)e.ID)
            {
                case BdnEngineEvents.BenchmarkStartId:
                    _bdnCaseByThread[e.ThreadID] = Str(e, BdnEngineEvents.Fields.BenchmarkName);
                    break;
                case BdnEngineEvents.BenchmarkStopId:
                    _bdnCaseByThread.Remove(e.ThreadID);
                    break;
                case BdnEngineEvents.WorkloadActualStartId when !OwnRunsSeen:
                    OnBdnIterationStart(e);
                    break;
                case BdnEngineEvents.WorkloadActualStopId:
                    if (_open is not { Closed: false, Source: WindowSource.HarnessEvents } open || open.WorkerThreadId != e.ThreadID) return;
                    open.EndMs = e.TimeStampRelativeMSec;
                    open.Closed = true;
                    _bdnRuns++;
                    break;
            }
        }

        private void OnBdnIterationStart(TraceEvent e)
        {
            // A trace that starts mid-benchmark (attached late) has iterations without their case's name.
            var name = BdnBenchmarkName.Parse(_bdnCaseByThread.GetValueOrDefault(e.ThreadID) ?? "(unnamed BenchmarkDotNet case)");
            var first = name.Key(0);
            var index = _bdnIterations.GetValueOrDefault(first);
            _bdnIterations[first] = index + 1;
            var operations = e.PayloadByName(BdnEngineEvents.Fields.TotalOperations) is { } ops
                ? Math.Max(1L, Convert.ToInt64(ops, System.Globalization.CultureInfo.InvariantCulture)) : 1L;
            NewRun(new PendingRun(name.Key(index), "", e.ThreadID, e.TimeStampRelativeMSec, false, operations), 0, e.ThreadID, e.TimeStampRelativeMSec, WindowSource.HarnessEvents);
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
            analysis.Trace.RunSource = RunSource.BenchmarkDotNet;
            return true;
        }
    }
}
