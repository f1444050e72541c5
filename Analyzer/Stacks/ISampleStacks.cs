using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Stacks;

/// <summary>
/// A sampler's stacks, by the ids its <see cref="Samples.CpuSample"/>s carry: frames named the same way whatever the source
/// (TraceLog's spelling for managed code), so tags, hot methods and call trees agree across sources.
/// </summary>
internal interface ISampleStacks
{
    /// <summary>
    /// The frames leaf first, as the run's worker had them (a source may restore a frame its unwinder lost, hence
    /// the run); an array the caller must not change. <see cref="Samples.SampleStream.NoStack"/> is the empty stack.
    /// Once a stack has been named with no run, naming it again with no run only reads: <see cref="Samples.SampleCharger"/>
    /// names every sample's stack first, then reads them from two threads while one of them names runs' repairs.
    /// </summary>
    StackFrame[] Frames(int stackId, Model.RunKey? run);

    /// <summary>The optimization tier of the code the sample ran (its innermost managed frame); null when it has none.</summary>
    CodeTier? Tier(int stackId);

    /// <summary>The leaf has no name (stripped native code, stubs, code without rundown).</summary>
    bool LeafUnnamed(int stackId);

    /// <summary>The stack runs one of the benchmark's measured calls: how a --threads helper thread's samples join a run.</summary>
    bool IsMeasuredWork(int stackId);

    /// <summary>
    /// The address of the first managed frame of a stack whose leaf is native code: where that code returns to, a call
    /// site (<see cref="Samples.ThrowCallSites"/>). 0 when the source keeps no addresses, or the stack has no such frame.
    /// </summary>
    ulong ManagedCallerAddress(int stackId) => 0;

    /// <summary>The leaf is a GC-poll helper: a safe-point sampler stopped the thread there; the caller did the work.</summary>
    bool LeafIsGcPoll(int stackId);
}
