using System.Runtime.InteropServices;
using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>
/// Stacks of the Linux kernel session's samples, named by <see cref="KernelFrameNamer"/>. Native frames rootward of the
/// outermost managed frame (the host, the runtime's thread start: `dotnet`, libhostfxr, libcoreclr) are left out:
/// they sit under every sample of a managed thread and would let a catch-all native tag outrank the code that ran. A
/// stack with no managed frame (a runtime thread) keeps all of its frames. Frame-pointer unwinding loses the frame of
/// a serializer method that made no frame of its own; given the run, <see cref="MeasuredCallRepair"/> restores it.
/// </summary>
internal sealed class PerfStacks(KernelTrace kernel, KernelFrameNamer namer, StackTagFile? tags) : ISampleStacks
{
    private readonly MeasuredCallRepair _repair = new(tags);
    private readonly Dictionary<int, StackFrame[]> _frames = [];
    /// <summary>
    /// Per run's serializer and operation, each plain array (by instance) to its repaired form. Keyed by the named
    /// array, not the stack id: the repair reads names only, and kernel stacks are nearly all distinct by address
    /// while their named arrays repeat.
    /// </summary>
    private readonly Dictionary<(string Serializer, string Operation), Dictionary<StackFrame[], StackFrame[]>> _repaired = [];
    private (string Serializer, string Operation) _lastRun;
    private Dictionary<StackFrame[], StackFrame[]>? _lastRepaired;
    private readonly Dictionary<int, CodeTier?> _tiers = [];
    private readonly Dictionary<int, bool> _measured = [];
    private readonly List<StackFrame> _scratch = new(128);
    private readonly List<int> _ids = new(128);
    private readonly FrameArrays _arrays = new();

    public StackFrame[] Frames(int stackId, Model.RunKey? run)
    {
        if (stackId < 0) return [];
        var plain = Plain(stackId);
        if (run is not { } key || plain.Length == 0) return plain;
        var repaired = RepairedOf(key);
        if (repaired.TryGetValue(plain, out var frames)) return frames;
        _scratch.Clear();
        _scratch.AddRange(plain);
        frames = _repair.Repair(_scratch, key.Serializer, key.Operation) ? _arrays.Intern(CollectionsMarshal.AsSpan(_scratch)) : plain;
        repaired[plain] = frames;
        return frames;
    }

    /// <summary>The run's table; samples come run by run, so the last one is nearly always it.</summary>
    private Dictionary<StackFrame[], StackFrame[]> RepairedOf(Model.RunKey key)
    {
        if (_lastRepaired is not null && ReferenceEquals(_lastRun.Serializer, key.Serializer) && ReferenceEquals(_lastRun.Operation, key.Operation))
            return _lastRepaired;
        _lastRun = (key.Serializer, key.Operation);
        if (!_repaired.TryGetValue(_lastRun, out _lastRepaired))
            _repaired[_lastRun] = _lastRepaired = new(ReferenceEqualityComparer.Instance);
        return _lastRepaired;
    }

    private StackFrame[] Plain(int stackId)
    {
        if (_frames.TryGetValue(stackId, out var frames)) return frames;
        Fill(stackId);
        frames = _arrays.Intern(CollectionsMarshal.AsSpan(_scratch));
        _frames[stackId] = frames;
        return frames;
    }

    private void Fill(int stackId)
    {
        _scratch.Clear();
        kernel.Stacks.CopyTo(stackId, _ids);
        var outermostManaged = -1;
        for (var i = _ids.Count - 1; i >= 0; i--)
            if (namer.IsManaged(_ids[i])) { outermostManaged = i; break; }
        var count = outermostManaged < 0 ? _ids.Count : outermostManaged + 1;
        for (var i = 0; i < count; i++) _scratch.Add(namer.Name(_ids[i]).Frame);
    }

    /// <summary>The tier of the innermost managed frame: the code running, or the managed code that called into native code.</summary>
    public CodeTier? Tier(int stackId)
    {
        if (stackId < 0) return null;
        if (_tiers.TryGetValue(stackId, out var tier)) return tier;
        tier = null;
        for (var node = stackId; node >= 0; node = kernel.Stacks.Caller(node))
            if (namer.Name(kernel.Stacks.Leaf(node)).Tier is { } t) { tier = t; break; }
        _tiers[stackId] = tier;
        return tier;
    }

    public bool LeafUnnamed(int stackId) =>
        stackId >= 0 && namer.Name(kernel.Stacks.Leaf(stackId)).Frame.Method == StackFrame.Unresolved;

    public bool LeafIsGcPoll(int stackId) => false;

    public bool IsMeasuredWork(int stackId)
    {
        if (stackId < 0) return false;
        if (_measured.TryGetValue(stackId, out var measured)) return measured;
        measured = MeasuredCalls.Any(Plain(stackId));
        _measured[stackId] = measured;
        return measured;
    }
}
