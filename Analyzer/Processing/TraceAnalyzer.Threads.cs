using EtwSerializerProfiler.Analyzer.Model;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Analysis;
using Microsoft.Diagnostics.Tracing.Etlx;

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
        private readonly Dictionary<int, ThreadProfile> _threads = [];
        private readonly Dictionary<int, double> _threadJitStart = [];
        private readonly Dictionary<int, (double Ms, string Frame)> _threadContentionStart = [];

        private readonly HashSet<string> _seenFamilies = [];

        /// <summary>
        /// A trace recorded by another tool may leave whole event families out (dotnet-trace's default has no
        /// allocation ticks, no contention): say which, so an empty column is not read as "none happened".
        /// </summary>
        private void SayWhatIsMissing()
        {
            (string Family, string Why)[] families =
            [
                ("alloc", "allocation ticks (CLR GC keyword 0x1 at Verbose level)"),
                ("contention", "lock contention (CLR Contention keyword 0x4000)"),
                ("exception", "exceptions (CLR Exception keyword 0x8000)"),
                ("jit", "JIT timing (CLR Jit keyword 0x10 at Verbose level)"),
            ];
            var missing = families.Where(f => !_seenFamilies.Contains(f.Family)).Select(f => f.Why).ToList();
            if (missing.Count > 0) analysis.Warnings.Add($"this trace has no events for {string.Join(", ", missing)}: those columns show nothing, not zero");
        }

        private ThreadProfile? ThreadOf(TraceEvent e)
        {
            if (etw && (_processId == 0 || e.ProcessID != _processId)) return null;
            if (_threads.TryGetValue(e.ThreadID, out var t)) return t;
            _threads[e.ThreadID] = t = new ThreadProfile { ThreadId = e.ThreadID };
            return t;
        }

        private void ThreadAllocation(Microsoft.Diagnostics.Tracing.Parsers.Clr.GCAllocationTickTraceData e)
        {
            _seenFamilies.Add("alloc");
            if (ThreadOf(e) is not { } t) return;
            t.AllocatedBytes += e.AllocationAmount64;
            var type = string.IsNullOrEmpty(e.TypeName) ? "?" : e.TypeName;
            t.AllocatedBytesByType[type] = t.AllocatedBytesByType.GetValueOrDefault(type) + e.AllocationAmount64;
        }

        private void ThreadException(TraceEvent e, string type, string frame, CallStackIndex stack)
        {
            _seenFamilies.Add("exception");
            if (ThreadOf(e) is not { } t) return;
            t.Exceptions++;
            var key = $"{type} at {frame} [{stacks?.Tag(stack) ?? StackTags.StackTagMatcher.Other}]";
            t.ExceptionsByTypeAndFrame[key] = t.ExceptionsByTypeAndFrame.GetValueOrDefault(key) + 1;
        }

        private void ThreadContentionStart(TraceEvent e, string frame)
        {
            _seenFamilies.Add("contention");
            _threadContentionStart[e.ThreadID] = (e.TimeStampRelativeMSec, $"{frame} [{stacks?.Tag(e.CallStackIndex()) ?? StackTags.StackTagMatcher.Other}]");
        }

        private void ThreadContentionStop(TraceEvent e)
        {
            if (!_threadContentionStart.Remove(e.ThreadID, out var start) || ThreadOf(e) is not { } t) return;
            var ms = e.TimeStampRelativeMSec - start.Ms;
            t.ContentionMs += ms;
            t.Contentions++;
            t.ContentionMsByFrame[start.Frame] = t.ContentionMsByFrame.GetValueOrDefault(start.Frame) + ms;
        }

        private void ThreadJitStart(TraceEvent e)
        {
            _seenFamilies.Add("jit");
            _threadJitStart[e.ThreadID] = e.TimeStampRelativeMSec;
        }

        private void ThreadJitEnd(TraceEvent e)
        {
            if (!_threadJitStart.Remove(e.ThreadID, out var start) || ThreadOf(e) is not { } t) return;
            t.JitMs += e.TimeStampRelativeMSec - start;
            t.JitMethods++;
        }

        /// <summary>Thread names from the trace, process GCs from TraceEvent's GC analysis and the pauses found in the pass.</summary>
        private void FinishWholeTrace(TraceLogEventSource source)
        {
            if (analysis.Runs.Count == 0) SayWhatIsMissing();
            foreach (var thread in log.Threads)
                if (_threads.TryGetValue(thread.ThreadID, out var t) && !string.IsNullOrEmpty(thread.ThreadInfo)) t.Name = thread.ThreadInfo;
            analysis.Threads.AddRange(_threads.Values.Where(t => t.Active).OrderByDescending(t => t.CpuMs).ThenBy(t => t.ThreadId));
            var process = analysis.Process;
            foreach (var p in source.Processes())
            {
                if (etw && p.ProcessID != _processId) continue;
                foreach (var gc in p.LoadedDotNetRuntime()?.GC?.GCs ?? [])
                {
                    if (gc.Generation == 0) process.Gen0++;
                    else if (gc.Generation == 1) process.Gen1++;
                    else process.Gen2++;
                }
            }
            process.GcPauseMs = _pauses.Sum(p => p.EndMs - p.StartMs);
            process.MaxGcPauseMs = _pauses.Count == 0 ? 0 : _pauses.Max(p => p.EndMs - p.StartMs);
        }
    }
}
