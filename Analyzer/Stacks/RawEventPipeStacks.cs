using EtwSerializerProfiler.Analyzer.Collections;
using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Common;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Stacks;

/// <summary>
/// An EventPipe trace's stacks read in the raw pass (<see cref="EventStackAddresses"/>), interned by address
/// (<see cref="StackTree{T}"/>) and named from the trace's own method loads and rundown (<see cref="ManagedCodeMap"/>)
/// as TraceLog names them: "module!Namespace.Type.Method(args)", and "?!?" for an address in no known method.
/// The rundown comes last in the file, so a stack named before the pass ends (<see cref="Provisional"/>) may name
/// less than it will: the pass checks such answers afterwards (<see cref="Processing.TraceAnalyzer"/>).
/// </summary>
internal sealed class RawEventPipeStacks(StackTagMatcher? matcher) : EventStacks(matcher)
{
    private readonly StackTree<ulong> _stacks = new();
    private readonly List<ulong> _scratch = [];
    private readonly Dictionary<ulong, StackFrame> _frameByAddress = [];
    private readonly Dictionary<(string, string), StackFrame> _frames = [];
    private readonly Dictionary<string, string> _strings = new(StringComparer.Ordinal);
    private static readonly StackFrame Unknown = new("?", StackFrame.Unresolved);

    /// <summary>Distinct stacks (by address) read so far.</summary>
    public int Count => _stacks.Count;

    /// <summary>
    /// Methods the pass needs named before it ends (the marker's run wait, the measured calls) as they load: until
    /// the map is complete, only these are named, and the pass checks its answers once it is.
    /// </summary>
    private readonly List<ManagedCodeMap.Method> _early = [];

    public override bool NamedAfterPass => true;

    public override bool NamesAddresses => true;

    public override int FromAddresses(ulong[] leafFirst) => leafFirst.Length > 0 ? Intern(leafFirst) : -1;

    public override void Loaded(ManagedCodeMap.Method method)
    {
        var frame = new StackFrame(method.Module, method.Name);
        if (MeasuredCalls.Is(frame) || RunEvents.IsMarkerMethod(method.Name)) _early.Add(method);
    }

    protected override void CodeChanged() => _frameByAddress.Clear();

    public override int StackOf(TraceEvent e) => _stacks.Intern(EventStackAddresses.Of(e, _scratch));

    /// <summary>A stack given leaf first, as an event would carry it (for tests).</summary>
    internal int Intern(ReadOnlySpan<ulong> leafFirst) => _stacks.Intern(leafFirst);

    protected override int Caller(int stackId) => _stacks.Caller(stackId);

    protected override ulong LeafAddress(int stackId) => _stacks.Leaf(stackId);

    protected override StackFrame LeafFrame(int stackId)
    {
        var address = _stacks.Leaf(stackId);
        if (_frameByAddress.TryGetValue(address, out var frame)) return frame;
        var method = Code is { } code ? code.Find(address) : _early.Find(m => address - m.Start < m.Size);
        frame = method is null ? Unknown : FrameOf(method.Module, method.Name);
        _frameByAddress[address] = frame;
        return frame;
    }

    // One string per module and per method (FrameArrays and the tag caches share by instance).
    private StackFrame FrameOf(string module, string method)
    {
        if (_frames.TryGetValue((module, method), out var frame)) return frame;
        frame = new StackFrame(Intern(module), Intern(method));
        _frames[(module, method)] = frame;
        return frame;
    }

    private string Intern(string s)
    {
        if (_strings.TryGetValue(s, out var known)) return known;
        _strings[s] = s;
        return s;
    }
}
