using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using EtwSerializerProfiler.Analyzer.StackTags;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>
    /// The adapter from TraceEvent's events to the collectors (Processing/Collectors): it reads the payload, names
    /// the code from the stack, and finds the run (RunOf at a start, the open run at a stop) and the thread; the
    /// collectors, which know nothing of TraceEvent, count.
    /// </summary>
    private sealed partial class PassState
    {
        private readonly AllocationCollector _allocations = new();
        private readonly ExceptionCollector _exceptions = new();
        private readonly ContentionCollector _contention = new();
        private readonly JitCollector _jit = new();
        // Where managed code lives, with its tier (loads and the end rundown); samples are given theirs at the end, when
        // all of it is known, and the kernel session's frames their names.
        private readonly Kernel.ManagedCodeMap.Builder _code = new();
        private Kernel.ManagedCodeMap? _codeMap;

        /// <summary>The managed code map, once the pass is over.</summary>
        public Kernel.ManagedCodeMap Code => _codeMap ??= _code.Build();
        /// <summary>The trace's stacks as the samples read them: whether an event's stack is the benchmark's measured work is answered once, for both.</summary>
        private readonly TraceLogStacks _sampleStacks = new(log, stacks ?? new StackResolver(log, null));

        private void SubscribeCollectors(TraceLogEventSource source)
        {
            _code.Subscribe(source);
            source.Clr.GCAllocationTick += e => _allocations.Tick(RunOf(e), ThreadOf(e), e.AllocationAmount64, e.TypeName);
            source.Clr.ExceptionStart += e =>
            {
                var stack = e.CallStackIndex();
                var frame = stacks is null ? ExceptionCollector.UnknownFrame : ExceptionCollector.ThrowerOf(stacks.Frames(stack));
                _exceptions.Thrown(RunOf(e), ThreadOf(e), new ExceptionSite(e.ExceptionType, frame, TagOf(stack)));
            };
            source.Clr.ContentionStart += e =>
            {
                var stack = e.CallStackIndex();
                var taker = stacks is null || stack == CallStackIndex.Invalid ? ExceptionCollector.UnknownFrame : ContentionCollector.TakerOf(stacks.Frames(stack));
                _contention.Start(e.ThreadID, e.TimeStampRelativeMSec, new CodeSite(taker, TagOf(stack)), inRun: RunOf(e) is not null);
            };
            source.Clr.ContentionStop += e => _contention.Stop(e.ThreadID, e.TimeStampRelativeMSec, _windows.Open, ThreadOf(e));
            source.Clr.MethodJittingStarted += e => _jit.Start(e.ThreadID, (long)e.MethodID, e.TimeStampRelativeMSec, inRun: RunOf(e) is not null);
            source.Clr.MethodLoadVerbose += e =>
            {
                if (_jit.Loaded(e.ThreadID, (long)e.MethodID, e.TimeStampRelativeMSec, _windows.Open, ThreadOf(e)) is { } compiled && InProcess(e))
                    _runtimeWork.Add(e.ThreadID, Samples.RuntimeWorkKind.Jit, compiled);
            };
        }

        private string TagOf(CallStackIndex stack) => stacks?.Tag(stack) ?? StackTagMatcher.Other;
    }
}
