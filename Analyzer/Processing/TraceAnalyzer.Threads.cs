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
        /// An event family without events is one of three things: enabled and none happened (the zeros are real), not
        /// enabled (dotnet-trace's default has no allocation ticks, no contention: the columns show nothing, not zero), or,
        /// for a trace that does not say what its session enabled, unknown. The manifest says which (<see cref="PassEnd.Recorded"/>).
        /// </summary>
        private void SayWhatIsMissing(Input.RecordedProviders? recorded)
        {
            var missing = _stages.Select(s => s.Missing).OfType<ClrEventFamily>().ToList();
            if (missing.Count == 0) return;
            foreach (var line in MissingEvents.Lines(missing.Select(f => (f.Why, recorded is null ? (bool?)null : recorded.Enabled(MissingEvents.ClrProviderName, f.Keyword, f.Level)))))
                analysis.WarningList.Add(line);
        }

        public ThreadDraft? ThreadOf(TraceEvent e) => _scope.InProcess(e) ? ThreadOf(e.ThreadID) : null;

        /// <summary>A thread of the recorded process by id (the exception files' events, which are all its own).</summary>
        public ThreadDraft ThreadOf(int threadId)
        {
            if (_threads.TryGetValue(threadId, out var t)) return t;
            _threads[threadId] = t = new ThreadDraft { ThreadId = threadId };
            return t;
        }

        /// <summary>
        /// Thread names (the runtime's for its own threads, else the CPU source's: a thread that only waited has no
        /// sample but its switches name it), the process's GCs and the pauses found in the pass.
        /// </summary>
        private void FinishWholeTrace(PassEnd end)
        {
            var gcs = Stage<RuntimeStage>();
            var cpuStage = Stage<CpuStage>();
            if (analysis.Runs.Count == 0) SayWhatIsMissing(end.Recorded);
            foreach (var (id, t) in _threads)
                t.Name = end.Facts.ThreadName(id) ?? cpuStage.ThreadName(id);
            // The threads are done here (the CPU charge wrote its columns before): the model gets them frozen.
            analysis.ThreadList.AddRange(_threads.Values.Where(t => t.Active).OrderByDescending(t => t.CpuMs).ThenBy(t => t.ThreadId).Select(t => t.Freeze()));
            var (gen0, gen1, gen2) = gcs.Recorded.Gcs.Counts();
            var (modules, namespaces) = analysis.Runs.Count == 0 && cpuStage.Charges is { } cpu ? cpu.WholeTraceLibraries() : ([], []);
            analysis.Process = new ProcessProfile
            {
                GcCount = new GcCounts(gen0, gen1, gen2),
                CpuMs = analysis.ThreadList.Sum(t => t.CpuMs),
                Modules = modules,
                Namespaces = namespaces,
                GcPauseMs = gcs.GcPauses.Sum(p => p.EndMs - p.StartMs),
                MaxGcPauseMs = gcs.GcPauses.Count == 0 ? 0 : gcs.GcPauses.Max(p => p.EndMs - p.StartMs),
            };
        }
    }
}
