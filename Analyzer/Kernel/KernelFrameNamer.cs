using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// Names perf's frames the way the rest of the analyzer names frames: managed code by the EventPipe trace's method
/// map (TraceLog's spelling, so tags and hot methods agree across sources), native code by module file and perf's
/// symbol where the module has one ("libcoreclr.so!?" where it is stripped), the kernel as module "kernel".
/// </summary>
internal sealed class KernelFrameNamer(KernelTrace trace, ManagedCodeMap code, Dictionary<string, string>? modules = null)
{
    public const string KernelModule = StackTags.SerializerStackTagsGenerator.KernelModule;
    private readonly (StackFrame Frame, CodeTier? Tier)[] _named = new (StackFrame, CodeTier?)[trace.Frames.Count];
    private readonly bool[] _done = new bool[trace.Frames.Count];
    // Shared by the namers of a trace's chunks, so a module is one string in every chunk (caches key on instances).
    private readonly Dictionary<string, string> _modules = modules ?? new(StringComparer.Ordinal);

    /// <summary>The frame's name, and its code tier when it is managed code.</summary>
    public (StackFrame Frame, CodeTier? Tier) Name(int frameId)
    {
        if (_done[frameId]) return _named[frameId];
        var raw = trace.Frames[frameId];
        (StackFrame, CodeTier?) named;
        if (raw.Kernel) named = (new StackFrame(KernelModule, Symbol(raw.Symbol)), null);
        else if (code.Find(raw.Address) is { } method) named = (new StackFrame(method.Module, method.Name), method.Tier);
        else named = (new StackFrame(ModuleOf(raw.Dso), Symbol(raw.Symbol)), null);
        _named[frameId] = named;
        _done[frameId] = true;
        return named;
    }

    public bool IsManaged(int frameId) => Name(frameId).Tier is not null;

    private static string Symbol(string perfSymbol) => perfSymbol == "[unknown]" || perfSymbol.Length == 0 ? StackFrame.Unresolved : perfSymbol;

    /// <summary>"/usr/share/dotnet/shared/.../libcoreclr.so" is "libcoreclr.so"; anonymous or JIT memory perf cannot name is "?".</summary>
    private string ModuleOf(string dso)
    {
        // One string per module (dso strings are interned by the reader): frames of one module share it.
        if (_modules.TryGetValue(dso, out var known)) return known;
        return _modules[dso] = ModuleName(dso);
    }

    private static string ModuleName(string dso)
    {
        if (dso == "[unknown]" || dso.Length == 0) return "?";
        if (dso.StartsWith("/memfd:doublemapper", StringComparison.Ordinal)) return "jitted-code";
        var name = Path.GetFileName(dso);
        return name.Length == 0 ? dso : name;
    }
}
