using EtwSerializerProfiler.Analyzer.Model;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>CPU samples and the events charged to the open run: weights, stack tags, hot methods, lock takers.</summary>
    private sealed partial class PassState
    {
        private void OnSample(TraceEvent e)
        {
            _samples++;
            var now = e.TimeStampRelativeMSec;
            var since = _weigher.Previous(e.ThreadID, now);
            if (!IsManagedSample(e)) return;
            // The whole trace, thread by thread: the same weight as a run's (time since the thread's last sample, GC taken out).
            ThreadSample(e, _weigher.Cap(now - since - OverlapWithPauses(since, now)), e.CallStackIndex());
            if (RunOf(e) is not { } run) return;
            // The time since this thread's previous sample, from the run's start at the earliest. No samples are
            // taken while the runtime is suspended for a GC: that part of the gap is the GC's, not this stack's.
            var from = Math.Max(since, run.StartMs);
            var gcMs = OverlapWithPauses(from, now);
            var weight = _weigher.Cap(now - from - gcMs);
            if (gcMs > 0) run.Tags[GcTag] = run.Tags.GetValueOrDefault(GcTag) + gcMs;
            if (stacks?.LeafIsGcPoll(e.CallStackIndex()) == true) run.GcPollLeafSamples++;
            Charge(run, e.CallStackIndex(), weight);
        }

        /// <summary>A kernel profile interrupt: on-CPU time, one sampling interval per sample, any thread of the process.</summary>
        private void OnKernelSample(Microsoft.Diagnostics.Tracing.Parsers.Kernel.SampledProfileTraceData e)
        {
            if (!InProcess(e)) return;
            _samples++;
            if (RunOf(e) is { } run) Charge(run, e.CallStackIndex(), kernelSampleMs);
        }

        private void Charge(RunAnalysis run, CallStackIndex stack, double weight)
        {
            run.CpuMs += weight;
            run.Samples++;
            // A GC-poll helper leaf says where the thread was stopped; the code that ran is its caller's.
            var code = stack != CallStackIndex.Invalid && stacks?.LeafIsGcPoll(stack) == true ? log.CallStacks.Caller(stack) : stack;
            if (code != CallStackIndex.Invalid) _sampleCode.Add((run, log.CodeAddresses.Address(log.CallStacks.CodeAddressIndex(code)), weight));
            if (stacks is null) return;
            if (stacks.LeafUnresolved(stack)) _unresolvedSamples++;
            var tag = stacks.Tag(stack);
            run.Tags[tag] = run.Tags.GetValueOrDefault(tag) + weight;
            VoteForName(run, stack, weight);
            if (options.CollectHotMethods) AddHotMethods(run, stack, weight);
        }

        private void AddHotMethods(RunAnalysis run, CallStackIndex stack, double weight)
        {
            var key = (run.Key.Serializer, run.Key.Operation);
            if (!analysis.HotMethods.TryGetValue(key, out var methods)) analysis.HotMethods[key] = methods = new(StringComparer.Ordinal);
            var frames = stacks!.Frames(stack);
            var seen = new HashSet<string>(StringComparer.Ordinal);
            // EventPipe samples stop threads at GC safe points, so a GC poll helper is often the leaf; the method
            // that polled is the one doing the work.
            var leaf = 0;
            while (leaf < frames.Count - 1 && StackResolver.IsGcPoll(frames[leaf])) leaf++;
            for (var i = leaf; i < frames.Count; i++)
            {
                var name = StackResolver.Display(frames[i]);
                if (!seen.Add(name)) continue; // recursion counts once per sample
                var (ex, inc) = methods.GetValueOrDefault(name);
                methods[name] = (ex + (i == leaf ? weight : 0), inc + weight);
            }
        }

        /// <summary>
        /// Each sample's code tier: its leaf's address in the code the JIT made during the trace (MethodLoadVerbose
        /// with its OptimizationTier). A managed leaf outside all of it was never jitted here, so it is precompiled
        /// (ReadyToRun). A kernel session, which sees native frames too, replaces these figures.
        /// </summary>
        private void AssignTiers()
        {
            if (_sampleCode.Count == 0) return;
            var map = Kernel.ManagedCodeMap.FromMethods(_jitCode);
            foreach (var (run, address, ms) in _sampleCode)
            {
                var tier = map.Find(address)?.Tier ?? Kernel.CodeTier.ReadyToRun;
                run.TierMs[tier] = run.TierMs.GetValueOrDefault(tier) + ms;
            }
        }

        /// <summary>The first frame outside System.Threading (Monitor.Enter, Lock, ...) is the code that wanted the lock.</summary>
        private string LockTaker(CallStackIndex stack)
        {
            if (stacks is null || stack == CallStackIndex.Invalid) return "?";
            var taker = stacks.Frames(stack).FirstOrDefault(f => f.Method != StackResolver.Unresolved && !f.Method.StartsWith("System.Threading.", StringComparison.Ordinal));
            return taker == default ? "?" : StackResolver.Display(taker);
        }

        /// <summary>
        /// Other threads count only while they run the benchmark's measured calls (--threads workers): idle
        /// thread-pool spinning or a progress callback during the window is not the serializer's cost.
        /// </summary>
        private bool IsMeasuredWork(CallStackIndex stack)
        {
            if (stacks is null || stack == CallStackIndex.Invalid) return false;
            if (_measuredByStack.TryGetValue(stack, out var measured)) return measured;
            measured = stacks.Frames(stack).Any(f => MeasuredFrames.Any(m => f.Method.Contains(m, StringComparison.Ordinal)));
            _measuredByStack[stack] = measured;
            return measured;
        }

        private static bool IsManagedSample(TraceEvent e)
        {
            var type = e.PayloadValue(0);
            return type switch
            {
                string s => s == "Managed",
                null => true,
                _ => Convert.ToInt32(type, System.Globalization.CultureInfo.InvariantCulture) == 2,
            };
        }
    }
}
