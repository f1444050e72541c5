using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Stacks;

/// <summary>
/// The stacks of a trace's events, by an int id per distinct stack (-1: none), whoever reads them: TraceLog's
/// CallStackIndex (<see cref="TraceLogStacks"/>, ETW and the .etlx fallback) or a raw EventPipe pass's own
/// (<see cref="RawEventPipeStacks"/>). A source only names a stack's frames and finds its leaf's address; what the
/// pass and the chargers ask of a stack (frames, tag, tier, measured work) is answered here, once per stack.
/// </summary>
internal abstract class EventStacks(StackTagMatcher? matcher) : ISampleStacks
{
    private readonly Dictionary<int, StackFrame[]> _frames = [];
    private readonly Dictionary<int, string> _tags = [];
    private readonly Dictionary<int, bool> _measured = [];
    private readonly FrameArrays _arrays = new();
    private readonly List<StackFrame> _scratch = new(64);

    /// <summary>Null without stack tags: then tags are Other and the pass names no code from stacks (as it always did).</summary>
    public StackTagMatcher? Matcher => matcher;

    /// <summary>
    /// The code jitted during the trace, with tiers; set when the pass has seen all of it. Stacks named before (a
    /// raw pass's, which names them from the map) are named again.
    /// </summary>
    public ManagedCodeMap? Code
    {
        get;
        set
        {
            field = value;
            _frames.Clear();
            _tags.Clear();
            _measured.Clear();
            CodeChanged();
        }
    }

    /// <summary>
    /// What differs between the two readers, as capabilities rather than types. True when stacks are named only once
    /// the pass is over (a raw pass: the rundown comes last): answers given during the pass are provisional, checked
    /// at its end, and sites named from stacks wait for it.
    /// </summary>
    public virtual bool NamedAfterPass => false;

    /// <summary>Whether a stack read beside the trace, by its addresses, can be named (<see cref="FromAddresses"/>).</summary>
    public virtual bool NamesAddresses => false;

    /// <summary>A stack read beside the trace (leaf first, by address) as an id of this reader's; -1 when it has none or cannot name addresses (TraceLog's ids are its own).</summary>
    public virtual int FromAddresses(ulong[] leafFirst) => -1;

    /// <summary>A method loaded during the pass: what a reader that names stacks before the map is complete needs.</summary>
    public virtual void Loaded(ManagedCodeMap.Method method) { }

    /// <summary>Forget names taken from an older map.</summary>
    protected virtual void CodeChanged() { }

    /// <summary>The measured-work answers given so far, by stack.</summary>
    public Dictionary<int, bool> MeasuredAnswers() => new(_measured);

    /// <summary>The event's stack id, or -1.</summary>
    public abstract int StackOf(TraceEvent e);

    /// <summary>The stack without its leaf frame, or -1.</summary>
    protected abstract int Caller(int stackId);

    /// <summary>The leaf frame's code address.</summary>
    protected abstract ulong LeafAddress(int stackId);

    /// <summary>The leaf frame's name.</summary>
    protected abstract StackFrame LeafFrame(int stackId);

    /// <summary>Frames leaf first, one shared array per distinct named stack (the caller must not change it).</summary>
    public StackFrame[] Frames(int stackId, RunKey? run = null)
    {
        if (stackId < 0) return [];
        if (_frames.TryGetValue(stackId, out var frames)) return frames;
        _scratch.Clear();
        for (var s = stackId; s >= 0; s = Caller(s)) _scratch.Add(LeafFrame(s));
        frames = _arrays.Intern(System.Runtime.InteropServices.CollectionsMarshal.AsSpan(_scratch));
        _frames[stackId] = frames;
        return frames;
    }

    /// <summary>The stack's tag (Other without stack tags or a stack).</summary>
    public string Tag(int stackId)
    {
        if (stackId < 0 || matcher is null) return StackTagMatcher.Other;
        if (_tags.TryGetValue(stackId, out var tag)) return tag;
        tag = matcher.Classify(Frames(stackId));
        _tags[stackId] = tag;
        return tag;
    }

    /// <summary>
    /// A sample's tier is that of its leaf's code in the code the JIT made during the trace (<see cref="Code"/>); a
    /// managed leaf outside all of it was never jitted here, so it is precompiled (ReadyToRun).
    /// </summary>
    public CodeTier? Tier(int stackId)
    {
        if (stackId < 0) return null;
        // A GC-poll helper leaf says where the thread was stopped; the code that ran is its caller's.
        var code = LeafIsGcPoll(stackId) ? Caller(stackId) : stackId;
        if (code < 0) return null;
        return Code?.Find(LeafAddress(code))?.Tier ?? CodeTier.ReadyToRun;
    }

    /// <summary>True when the leaf frame has no method name (no rundown, or native code).</summary>
    public bool LeafUnnamed(int stackId) => stackId < 0 || Frames(stackId)[0].Method == StackFrame.Unresolved;

    /// <summary>
    /// True when the innermost frame is a GC-poll helper: EventPipe's sampler stops threads at safe points, so such
    /// a leaf says where the thread was stopped, not where it spent its time.
    /// </summary>
    public bool LeafIsGcPoll(int stackId) => stackId >= 0 && Frames(stackId)[0].IsGcPoll;

    public bool IsMeasuredWork(int stackId)
    {
        if (stackId < 0) return false;
        if (_measured.TryGetValue(stackId, out var measured)) return measured;
        measured = MeasuredCalls.Any(Frames(stackId));
        _measured[stackId] = measured;
        return measured;
    }
}
