using EtwSerializerProfiler.Analyzer.Harness;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>The adapter from BenchmarkDotNet's engine events to the Harness/BdnIterations stage: it reads the payload.</summary>
    private sealed partial class PassState
    {
        private BdnIterations? _bdnIterations;
        private BdnIterations Bdn => _bdnIterations ??= new BdnIterations(_windows, HarnessRun);

        /// <summary>The manifest's harness: what the BenchmarkDotNet diagnoser said of a trace it recorded.</summary>
        public Common.HarnessInfo? HarnessRun { get; init; }

        private bool OwnRunsSeen => _windows.SawRunEvents || _windows.Unnamed > 0;

        private void OnBdnEvent(TraceEvent e)
        {
            // An ETW trace holds the whole machine: the process that runs the benchmarks is the one analyzed.
            _scope.Marked(e.ProcessID);
            var operations = PayloadFields.Int64(e, BdnEngineEvents.Fields.TotalOperations);
            Bdn.On(new BdnEvent((int)e.ID, e.ThreadID, e.TimeStampRelativeMSec, e.PayloadByName(BdnEngineEvents.Fields.BenchmarkName) as string, operations), OwnRunsSeen);
        }

        /// <returns>Whether BenchmarkDotNet's iterations are the trace's runs.</returns>
        private bool FinishBdnRuns() => _bdnIterations?.Finish(analysis, options.Includes, OwnRunsSeen) ?? false;
    }
}
