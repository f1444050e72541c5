using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Analyzer.Model;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>
    /// Whole-trace figures per thread, whatever the runs: CPU by stack tag, allocations by type, exceptions and lock
    /// waits with the code and tag behind them, JIT. ETW traces hold the whole machine and no recorded process is
    /// known without runs, so there only the benchmark's process (once a run named it) is profiled.
    /// </summary>
    private sealed partial class PassState
    {
        private readonly Dictionary<int, ThreadDraft> _threads = [];

        /// <summary>
        /// A trace recorded by another tool may leave whole event families out (dotnet-trace's default has no
        /// allocation ticks, no contention): say which, so an empty column is not read as "none happened".
        /// </summary>
        private void SayWhatIsMissing()
        {
            (bool Seen, string Why)[] families =
            [
                (_allocations.Seen, "allocation ticks (CLR GC keyword 0x1 at Verbose level)"),
                (_contention.Seen, "lock contention (CLR Contention keyword 0x4000)"),
                (_exceptions.Seen, "exceptions (CLR Exception keyword 0x8000)"),
                (_jit.Seen, "JIT timing (CLR Jit keyword 0x10 at Verbose level)"),
            ];
            var missing = families.Where(f => !f.Seen).Select(f => f.Why).ToList();
            if (missing.Count > 0) analysis.WarningList.Add($"this trace has no events for {string.Join(", ", missing)}: those columns show nothing, not zero");
        }

        private ThreadDraft? ThreadOf(TraceEvent e)
        {
            if (etw && (_processId == 0 || e.ProcessID != _processId)) return null;
            if (_threads.TryGetValue(e.ThreadID, out var t)) return t;
            _threads[e.ThreadID] = t = new ThreadDraft { ThreadId = e.ThreadID };
            return t;
        }

        /// <summary>Thread names from the trace, the process's GCs and the pauses found in the pass.</summary>
        private void FinishWholeTrace()
        {
            if (analysis.Runs.Count == 0) SayWhatIsMissing();
            foreach (var (id, t) in _threads)
                if (facts.ThreadName(id) is { } name) t.Name = name;
            // The threads are done here (the CPU charge wrote its columns before): the model gets them frozen.
            analysis.ThreadList.AddRange(_threads.Values.Where(t => t.Active).OrderByDescending(t => t.CpuMs).ThenBy(t => t.ThreadId).Select(t => t.Freeze()));
            var (gen0, gen1, gen2) = Runtime.Gcs.Counts();
            analysis.Process = new ProcessProfile
            {
                GcCount = new GcCounts(gen0, gen1, gen2),
                GcPauseMs = GcPauseList.Sum(p => p.EndMs - p.StartMs),
                MaxGcPauseMs = GcPauseList.Count == 0 ? 0 : GcPauseList.Max(p => p.EndMs - p.StartMs),
            };
        }
    }
}
