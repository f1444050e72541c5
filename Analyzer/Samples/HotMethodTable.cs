using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>
/// Exclusive and inclusive time per method ("Module!Type.Method"), from the same weights the tables add up. A GC-poll
/// helper leaf (where a safe-point sampler stopped the thread) gives its exclusive time to the method that polled; the
/// unwinder's end of the chain ("?!?" rootward of the leaf) is no method; recursion counts once per sample. Time in code
/// without a name (the stripped native runtime: `libcoreclr!?`) is split by the managed method that called into it,
/// as children of its row ("native, called from X.Y"), so the bucket a user cannot act on says whose call it was; where
/// the trace's events say what the runtime was doing, the child says that instead of "native" ("JIT, called from X.Y").
/// The split is a breakdown of the row's exclusive time, never a row of its own: each sample's weight is exclusive in
/// one row only, so the rows' exclusive times add up to at most the weights added.
/// </summary>
internal sealed class HotMethodTable(MethodNames names)
{
    // Samples are added up per distinct stack first (a source hands out one frames array per named stack,
    // Stacks/FrameArrays) and turned into methods once per stack when the table is read: a method's time is linear
    // in the weights, so this is the same sum at a fraction of the per-frame lookups. Entries are objects found by
    // the array's instance (reference-typed collections run precompiled framework code; a value-tuple key would not).
    private readonly Dictionary<StackFrame[], StackWeight> _stackOf = new(ReferenceEqualityComparer.Instance);
    private readonly List<StackWeight> _stacks = [];

    /// <summary>One stack read one way (GC-poll leaf, what the runtime was doing), with the weight added since the last read; others read the same stack other ways follow it.</summary>
    private sealed class StackWeight(StackFrame[] frames, bool gcPoll, NativeWork why)
    {
        public StackFrame[] Frames { get; } = frames;
        public bool GcPoll { get; } = gcPoll;
        public NativeWork Why { get; } = why;
        /// <summary>Null: nothing added since the last read (a zero weight still makes the stack's rows).</summary>
        public double? Pending { get; set; }
        public StackWeight? Next { get; set; }
    }

    // Per method this table has met, in the order it met them (the order the rows were added before numbers, kept
    // for ties): its number (MethodNames), its sums, and the stack that last counted it (recursion counts once per
    // stack, so once per sample). Slots are the table's own: a run meets a few hundred of the trace's methods.
    private readonly Dictionary<int, int> _slotOf = [];
    private readonly List<int> _ids = [];
    private readonly List<(double Exclusive, double Inclusive, int CountedIn)> _slots = [];
    // Per slot of unnamed code: its exclusive time by (what the runtime was doing, the managed caller's number).
    private readonly Dictionary<int, Dictionary<(string Said, int Caller), double>> _calledFrom = [];
    private int _sample;

    /// <param name="why">What the trace's events say the unnamed leaf was doing: the caller row is named by it ("JIT, called from X.Y").</param>
    public void Add(StackFrame[] framesLeafFirst, double weight, bool leafIsGcPoll, NativeWork why = NativeWork.None)
    {
        _stackOf.TryGetValue(framesLeafFirst, out var first);
        for (var s = first; s is not null; s = s.Next)
        {
            if (s.GcPoll != leafIsGcPoll || s.Why != why) continue;
            s.Pending = (s.Pending ?? 0) + weight;
            return;
        }
        var added = new StackWeight(framesLeafFirst, leafIsGcPoll, why) { Pending = weight, Next = first };
        _stackOf[framesLeafFirst] = added;
        _stacks.Add(added);
    }

    /// <summary>The weight added since the last read times <paramref name="factor"/> (a run's samples scaled to its precise total).</summary>
    public void Scale(double factor)
    {
        foreach (var s in _stacks)
            if (s.Pending is { } pending) s.Pending = pending * factor;
    }

    /// <summary>The weight added since the last read, stack by stack in the order they were first met, into the methods' sums.</summary>
    private void Expand()
    {
        foreach (var s in _stacks)
        {
            if (s.Pending is not { } pending) continue;
            Expand(s.Frames, pending, s.GcPoll, s.Why);
            s.Pending = null;
        }
    }

    private void Expand(StackFrame[] framesLeafFirst, double weight, bool leafIsGcPoll, NativeWork why)
    {
        var leaf = 0;
        if (leafIsGcPoll)
            while (leaf < framesLeafFirst.Length - 1 && framesLeafFirst[leaf].IsGcPoll) leaf++;
        _sample++;
        for (var i = leaf; i < framesLeafFirst.Length; i++)
        {
            // "?!?" rootward of the leaf is where the unwinder gave up; as the leaf it is code in anonymous memory (a stub).
            if (i > leaf && framesLeafFirst[i] is { Module: "?", Method: StackFrame.Unresolved }) continue;
            var slot = Count(names.IdOf(framesLeafFirst[i]), i == leaf ? weight : 0, weight);
            if (i == leaf && framesLeafFirst[i].Method == StackFrame.Unresolved && CallerOf(framesLeafFirst, leaf) is { } caller)
            {
                if (!_calledFrom.TryGetValue(slot, out var callers)) _calledFrom[slot] = callers = [];
                var key = (Said(why), names.IdOf(caller));
                callers[key] = callers.GetValueOrDefault(key) + weight;
            }
        }
    }

    /// <summary>How unnamed code is named by what the runtime was doing ("native", "JIT", ...): the tables' children and the HTML call trees.</summary>
    internal static string Said(NativeWork why) => why switch
    {
        NativeWork.GcPause => "GC",
        NativeWork.Jit => "JIT",
        NativeWork.TypeLoad => "type loading",
        NativeWork.Stub => "stub",
        NativeWork.ExceptionDispatch => "exception dispatch",
        _ => "native",
    };

    /// <returns>The method's slot.</returns>
    private int Count(int id, double exclusive, double inclusive)
    {
        if (!_slotOf.TryGetValue(id, out var slot))
        {
            _slotOf[id] = slot = _slots.Count;
            _ids.Add(id);
            _slots.Add((0, 0, 0));
        }
        var (ex, inc, countedIn) = _slots[slot];
        if (countedIn == _sample) return slot;
        _slots[slot] = (ex + exclusive, inc + inclusive, _sample);
        return slot;
    }

    /// <summary>The innermost named frame of managed code rootward of the leaf: the method that called into the runtime.</summary>
    private static StackFrame? CallerOf(StackFrame[] frames, int leaf)
    {
        for (var i = leaf + 1; i < frames.Length; i++)
        {
            var f = frames[i];
            if (f.Method == StackFrame.Unresolved || IsNative(f.Module)) continue;
            return f;
        }
        return null;
    }

    /// <summary>Native modules as the frame namers spell them: shared objects, the kernel, code perf could not place.</summary>
    internal static bool IsNative(string module) =>
        module.EndsWith(".so", StringComparison.Ordinal) || module.Contains(".so.", StringComparison.Ordinal)
        || module is "kernel" or "?" or "jitted-code"
        || module.Equals("coreclr.dll", StringComparison.OrdinalIgnoreCase) || module.Equals("clrjit.dll", StringComparison.OrdinalIgnoreCase);

    public void AddTo(HotMethodSums total)
    {
        Expand();
        for (var slot = 0; slot < _slots.Count; slot++)
        {
            var sum = total.Of(names.Name(_ids[slot]));
            sum.ExclusiveMs += _slots[slot].Exclusive;
            sum.InclusiveMs += _slots[slot].Inclusive;
            if (!_calledFrom.TryGetValue(slot, out var callers)) continue;
            foreach (var ((said, caller), ms) in callers)
            {
                var key = (said, names.Name(caller));
                sum.CalledFrom[key] = sum.CalledFrom.GetValueOrDefault(key) + ms;
            }
        }
    }
}

/// <summary>
/// Method rows by number, shared by the hot-method tables of one charge: a frame's display name is made once per frame
/// instance (<see cref="SameStrings"/>: the frame namers hand out one frame per code address), and frames that display
/// alike (a method's tier-0 and tier-1 code) share one number, so the tables add numbers, not hashed 100-character names.
/// </summary>
internal sealed class MethodNames
{
    private readonly Dictionary<StackFrame, int> _byFrame = new(SameStrings.Instance);
    private readonly Dictionary<string, int> _byName = new(StringComparer.Ordinal);
    private readonly List<string> _names = [];

    public string Name(int id) => _names[id];

    public int IdOf(StackFrame frame)
    {
        if (_byFrame.TryGetValue(frame, out var id)) return id;
        return _byFrame[frame] = IdOf(frame.Display);
    }

    private int IdOf(string name)
    {
        if (_byName.TryGetValue(name, out var id)) return id;
        _names.Add(name);
        return _byName[name] = _names.Count - 1;
    }
}
