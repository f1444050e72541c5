using System.Runtime.InteropServices;
using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Stacks;

/// <summary>
/// Stacks of the Linux kernel session's samples, named by <see cref="KernelFrameNamer"/>. Native frames rootward of the
/// outermost managed frame (the host, the runtime's thread start: `dotnet`, libhostfxr, libcoreclr) are left out:
/// they sit under every sample of a managed thread and would let a catch-all native tag outrank the code that ran. A
/// stack with no managed frame (a runtime thread) keeps all of its frames. Frame-pointer unwinding loses the frame of
/// a serializer method that made no frame of its own; given the run, <see cref="MeasuredCallRepair"/> restores it.
/// </summary>
internal sealed class PerfStacks(KernelTrace kernel, KernelFrameNamer namer, PerfStacks.Named named) : ISampleStacks
{
    public PerfStacks(KernelTrace kernel, KernelFrameNamer namer, StackTagFile? tags) : this(kernel, namer, new Named(tags)) { }

    /// <summary>
    /// What outlives one chunk of a trace read in chunks (<see cref="PerfScriptReader.ReadChunks"/>): the named
    /// arrays, so a named stack is the same array instance in every chunk (the charger's caches are keyed by it), and
    /// the repairs and measured-call positions found per named array. Stack ids are a chunk's own.
    /// </summary>
    internal sealed class Named(StackTagFile? tags)
    {
        public MeasuredCallRepair Repair { get; } = new(tags);
        public FrameArrays Arrays { get; } = new();
        /// <summary>
        /// Per run's serializer and operation, each plain array (by instance) to its repaired form. Keyed by the named
        /// array, not the stack id: the repair reads names only, and kernel stacks are nearly all distinct by address
        /// while their named arrays repeat.
        /// </summary>
        public Dictionary<(string Serializer, string Operation), Dictionary<StackFrame[], StackFrame[]>> Repaired { get; } = [];
        /// <summary>Per plain array (by instance), where its measured call's frame is, or -1: found once, not once per run it is repaired for.</summary>
        public Dictionary<StackFrame[], int> MeasuredAt { get; } = new(ReferenceEqualityComparer.Instance);
        /// <summary>Per method name (by its string's instance: a namer names each method once), whether it is a measured call.</summary>
        public Dictionary<string, bool> MeasuredMethods { get; } = new(ReferenceEqualityComparer.Instance);
    }

    private readonly MeasuredCallRepair _repair = named.Repair;
    // Per stack node (ids are dense: arrays, not dictionaries): its plain frames and tier once known.
    private readonly StackFrame[]?[] _frames = new StackFrame[]?[kernel.Stacks.Count];
    /// <summary>
    /// Per caller node (+1: the root is -1), the plain frames of the stacks that add one leaf to it, by the leaf's
    /// name. Distinct stacks are nearly all distinct only by their leaf's address; those whose leaves name the same
    /// method are the same named stack, found here without naming the whole chain again.
    /// </summary>
    private readonly LeafNamed?[] _byCaller = new LeafNamed?[kernel.Stacks.Count + 1];
    private readonly Dictionary<(string Serializer, string Operation), Dictionary<StackFrame[], StackFrame[]>> _repaired = named.Repaired;
    private readonly Dictionary<StackFrame[], int> _measuredAt = named.MeasuredAt;
    private readonly Dictionary<string, bool> _measuredMethods = named.MeasuredMethods;
    private (string Serializer, string Operation) _lastRun;
    private Dictionary<StackFrame[], StackFrame[]>? _lastRepaired;
    private readonly sbyte[] _tiers = new sbyte[kernel.Stacks.Count]; // 0: not yet known; -1: none; else the tier + 1

    /// <summary>A leaf's name (and whether it is managed code, which decides what is trimmed) and the plain frames of its stack.</summary>
    private sealed class LeafNamed(StackFrame leaf, bool managed, StackFrame[] plain, LeafNamed? next)
    {
        public StackFrame Leaf { get; } = leaf;
        public bool Managed { get; } = managed;
        public StackFrame[] Plain { get; } = plain;
        public LeafNamed? Next { get; } = next;
    }
    private readonly List<StackFrame> _scratch = new(128);
    private readonly List<int> _ids = new(128);
    private readonly FrameArrays _arrays = named.Arrays;

    public StackFrame[] Frames(int stackId, Model.RunKey? run)
    {
        if (stackId < 0) return [];
        var plain = Plain(stackId);
        if (run is not { } key || plain.Length == 0) return plain;
        var repaired = RepairedOf(key);
        if (repaired.TryGetValue(plain, out var frames)) return frames;
        var measured = MeasuredAt(plain);
        if (measured < 0) frames = plain;
        else
        {
            _scratch.Clear();
            _scratch.AddRange(plain);
            frames = _repair.Repair(_scratch, key.Serializer, key.Operation, measured) ? _arrays.Intern(CollectionsMarshal.AsSpan(_scratch)) : plain;
        }
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
        if (_frames[stackId] is { } frames) return frames;
        // The same caller and a leaf named alike make the same frames: which frames are trimmed depends on the chain
        // and on whether the leaf is managed, nothing else.
        var caller = kernel.Stacks.Caller(stackId);
        var (leaf, tier) = namer.Name(kernel.Stacks.Leaf(stackId));
        var managed = tier is not null;
        for (var known = _byCaller[caller + 1]; known is not null; known = known.Next)
            if (known.Managed == managed && SameStrings.Instance.Equals(known.Leaf, leaf)) return _frames[stackId] = known.Plain;
        Fill(stackId);
        frames = _arrays.Intern(CollectionsMarshal.AsSpan(_scratch));
        _byCaller[caller + 1] = new LeafNamed(leaf, managed, frames, _byCaller[caller + 1]);
        return _frames[stackId] = frames;
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
        if (_tiers[stackId] != 0) return _tiers[stackId] < 0 ? null : (CodeTier)(_tiers[stackId] - 1);
        CodeTier? tier = null;
        for (var node = stackId; node >= 0; node = kernel.Stacks.Caller(node))
            if (namer.Name(kernel.Stacks.Leaf(node)).Tier is { } t) { tier = t; break; }
        _tiers[stackId] = tier is { } known ? (sbyte)((int)known + 1) : (sbyte)-1;
        return tier;
    }

    public bool LeafUnnamed(int stackId) =>
        stackId >= 0 && namer.Name(kernel.Stacks.Leaf(stackId)).Frame.Method == StackFrame.Unresolved;

    public bool LeafIsGcPoll(int stackId) => false;

    public ulong ManagedCallerAddress(int stackId)
    {
        if (stackId < 0 || namer.IsManaged(kernel.Stacks.Leaf(stackId))) return 0;
        for (var node = kernel.Stacks.Caller(stackId); node >= 0; node = kernel.Stacks.Caller(node))
        {
            var frame = kernel.Stacks.Leaf(node);
            if (namer.IsManaged(frame)) return kernel.Frames[frame].Address;
        }
        return 0;
    }

    public bool IsMeasuredWork(int stackId) => stackId >= 0 && MeasuredAt(Plain(stackId)) >= 0;

    /// <summary>Where the plain stack's measured call is, or -1; once per named array, for the repair and for helper threads alike.</summary>
    private int MeasuredAt(StackFrame[] plain)
    {
        if (_measuredAt.TryGetValue(plain, out var measured)) return measured;
        measured = -1;
        for (var i = 0; i < plain.Length && measured < 0; i++)
        {
            // Once per method, not once per frame of every new stack: the name search was a third of naming stacks.
            var method = plain[i].Method;
            if (!_measuredMethods.TryGetValue(method, out var isMeasured)) _measuredMethods[method] = isMeasured = MeasuredCalls.Is(plain[i]);
            if (isMeasured) measured = i;
        }
        return _measuredAt[plain] = measured;
    }
}
