using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Samples;
using EtwSerializerProfiler.Analyzer.StackTags;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// Stacks of the samples TraceLog holds (EventPipe's SampleProfiler, ETW's profile interrupts), by CallStackIndex.
/// A sample's tier is that of its leaf's code in the code the JIT made during the trace (<see cref="Code"/>, known
/// once the pass is over); a managed leaf outside all of it was never jitted here, so it is precompiled (ReadyToRun).
/// </summary>
internal sealed class TraceLogStacks(TraceLog log, StackResolver resolver) : ISampleStacks
{
    private readonly Dictionary<int, StackFrame[]> _frames = [];
    private readonly Dictionary<int, bool> _measured = [];
    private readonly FrameArrays _arrays = new();

    /// <summary>The code jitted during the trace, with tiers; set when the pass has seen all of it.</summary>
    public ManagedCodeMap? Code { get; set; }

    public StackFrame[] Frames(int stackId, Model.RunKey? run)
    {
        if (stackId < 0) return [];
        if (_frames.TryGetValue(stackId, out var frames)) return frames;
        frames = _arrays.Intern(resolver.FrameSpan((CallStackIndex)stackId));
        _frames[stackId] = frames;
        return frames;
    }

    public CodeTier? Tier(int stackId)
    {
        if (stackId < 0) return null;
        // A GC-poll helper leaf says where the thread was stopped; the code that ran is its caller's.
        var stack = (CallStackIndex)stackId;
        var code = resolver.LeafIsGcPoll(stack) ? log.CallStacks.Caller(stack) : stack;
        if (code == CallStackIndex.Invalid) return null;
        var address = log.CodeAddresses.Address(log.CallStacks.CodeAddressIndex(code));
        return Code?.Find(address)?.Tier ?? CodeTier.ReadyToRun;
    }

    public bool LeafUnnamed(int stackId) => resolver.LeafUnresolved((CallStackIndex)stackId);

    public bool LeafIsGcPoll(int stackId) => stackId >= 0 && resolver.LeafIsGcPoll((CallStackIndex)stackId);

    public bool IsMeasuredWork(int stackId)
    {
        if (stackId < 0) return false;
        if (_measured.TryGetValue(stackId, out var measured)) return measured;
        measured = MeasuredCalls.Any(Frames(stackId, null));
        _measured[stackId] = measured;
        return measured;
    }
}
