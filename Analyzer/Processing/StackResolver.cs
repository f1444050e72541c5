using EtwSerializerProfiler.Analyzer.StackTags;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// Turns TraceLog call-stack indexes into frames and stack tags, caching per stack and per code address so a
/// stack seen a million times is resolved once. Unresolved frames become "module!?" and are counted.
/// </summary>
internal sealed class StackResolver(TraceLog log, StackTagMatcher? matcher)
{
    public const string Unresolved = StackFrame.Unresolved;
    public StackTagMatcher? Matcher => matcher;
    private readonly Dictionary<int, string> _tagByStack = [];
    private readonly Dictionary<int, StackFrame> _frameByAddress = [];
    private readonly Dictionary<int, bool> _unresolvedLeafByStack = [];
    private readonly Dictionary<int, bool> _gcPollLeafByStack = [];
    private readonly List<StackFrame> _scratch = new(64);
    private readonly Dictionary<ModuleFileIndex, string> _moduleNames = [];
    private readonly Dictionary<MethodIndex, string> _methodNames = [];

    public string Tag(CallStackIndex stack)
    {
        if (stack == CallStackIndex.Invalid || matcher is null) return StackTagMatcher.Other;
        if (_tagByStack.TryGetValue((int)stack, out var tag)) return tag;
        tag = matcher.Classify(Frames(stack));
        _tagByStack[(int)stack] = tag;
        return tag;
    }

    /// <summary>True when the leaf frame has no method name (no rundown, or native code).</summary>
    public bool LeafUnresolved(CallStackIndex stack)
    {
        if (stack == CallStackIndex.Invalid) return true;
        if (_unresolvedLeafByStack.TryGetValue((int)stack, out var u)) return u;
        u = Frame(log.CallStacks.CodeAddressIndex(stack)).Method == Unresolved;
        _unresolvedLeafByStack[(int)stack] = u;
        return u;
    }

    /// <summary>
    /// True when the innermost frame is a GC-poll helper: EventPipe's sampler stops threads at safe points, so
    /// such a leaf says where the thread was stopped, not where it spent its time.
    /// </summary>
    public bool LeafIsGcPoll(CallStackIndex stack)
    {
        if (stack == CallStackIndex.Invalid) return false;
        if (_gcPollLeafByStack.TryGetValue((int)stack, out var poll)) return poll;
        poll = IsGcPoll(Frame(log.CallStacks.CodeAddressIndex(stack)));
        _gcPollLeafByStack[(int)stack] = poll;
        return poll;
    }

    public static bool IsGcPoll(StackFrame f) => f.IsGcPoll;

    /// <summary>Frames leaf first. The returned list is reused: copy it to keep it.</summary>
    public IReadOnlyList<StackFrame> Frames(CallStackIndex stack)
    {
        FrameSpan(stack);
        return _scratch;
    }

    /// <summary>Frames leaf first, over the same reused buffer as <see cref="Frames"/>.</summary>
    public ReadOnlySpan<StackFrame> FrameSpan(CallStackIndex stack)
    {
        _scratch.Clear();
        for (var s = stack; s != CallStackIndex.Invalid; s = log.CallStacks.Caller(s))
            _scratch.Add(Frame(log.CallStacks.CodeAddressIndex(s)));
        return System.Runtime.InteropServices.CollectionsMarshal.AsSpan(_scratch);
    }

    public StackFrame Frame(CodeAddressIndex address)
    {
        if (_frameByAddress.TryGetValue((int)address, out var frame)) return frame;
        var codeAddresses = log.CodeAddresses;
        var module = codeAddresses.ModuleFile(address);
        var moduleName = module is null ? "?" : ModuleName(module);
        var method = codeAddresses.MethodIndex(address);
        frame = new StackFrame(moduleName, method == MethodIndex.Invalid ? Unresolved : MethodName(method));
        _frameByAddress[(int)address] = frame;
        return frame;
    }

    // One string per module and per method, not per code address: frames of one method are then the same strings,
    // which is what the caches keyed by instance (SameStrings, Samples/FrameArrays) share on.
    private string ModuleName(TraceModuleFile module)
    {
        if (_moduleNames.TryGetValue(module.ModuleFileIndex, out var name)) return name;
        name = string.IsNullOrEmpty(module.FilePath) ? module.Name : System.IO.Path.GetFileName(module.FilePath);
        _moduleNames[module.ModuleFileIndex] = name;
        return name;
    }

    private string MethodName(MethodIndex method)
    {
        if (_methodNames.TryGetValue(method, out var name)) return name;
        name = log.CodeAddresses.Methods.FullMethodName(method);
        if (string.IsNullOrEmpty(name)) name = Unresolved;
        _methodNames[method] = name;
        return name;
    }

    /// <summary>"Module!Type.Method" without the signature: how methods are shown in --top.</summary>
    public static string Display(StackFrame f) => f.Display;
}
