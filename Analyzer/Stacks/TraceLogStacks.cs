using EtwSerializerProfiler.Analyzer.StackTags;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace EtwSerializerProfiler.Analyzer.Stacks;

/// <summary>
/// Stacks as TraceLog holds them (ETW's, and EventPipe's when the trace is converted to .etlx), by CallStackIndex;
/// frames named from TraceLog's code addresses, one string per module and per method so frames of one method are
/// the same strings (what the caches keyed by instance, SameStrings and Stacks/FrameArrays, share on).
/// Unresolved frames become "module!?".
/// </summary>
internal sealed class TraceLogStacks(TraceLog log, StackTagMatcher? matcher) : EventStacks(matcher)
{
    private readonly Dictionary<int, StackFrame> _frameByAddress = [];
    private readonly Dictionary<ModuleFileIndex, string> _moduleNames = [];
    private readonly Dictionary<MethodIndex, string> _methodNames = [];

    public override int StackOf(TraceEvent e) => (int)e.CallStackIndex();

    protected override int Caller(int stackId) => (int)log.CallStacks.Caller((CallStackIndex)stackId);

    protected override ulong LeafAddress(int stackId) => log.CodeAddresses.Address(log.CallStacks.CodeAddressIndex((CallStackIndex)stackId));

    protected override StackFrame LeafFrame(int stackId) => Frame(log.CallStacks.CodeAddressIndex((CallStackIndex)stackId));

    private StackFrame Frame(CodeAddressIndex address)
    {
        if (_frameByAddress.TryGetValue((int)address, out var frame)) return frame;
        var codeAddresses = log.CodeAddresses;
        var module = codeAddresses.ModuleFile(address);
        var moduleName = module is null ? "?" : ModuleName(module);
        var method = codeAddresses.MethodIndex(address);
        frame = new StackFrame(moduleName, method == MethodIndex.Invalid ? StackFrame.Unresolved : MethodName(method));
        _frameByAddress[(int)address] = frame;
        return frame;
    }

    private string ModuleName(TraceModuleFile module)
    {
        if (_moduleNames.TryGetValue(module.ModuleFileIndex, out var name)) return name;
        name = string.IsNullOrEmpty(module.FilePath) ? module.Name : Path.GetFileName(module.FilePath);
        _moduleNames[module.ModuleFileIndex] = name;
        return name;
    }

    private string MethodName(MethodIndex method)
    {
        if (_methodNames.TryGetValue(method, out var name)) return name;
        name = log.CodeAddresses.Methods.FullMethodName(method);
        if (string.IsNullOrEmpty(name)) name = StackFrame.Unresolved;
        _methodNames[method] = name;
        return name;
    }
}
