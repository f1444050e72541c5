using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>What the trace says a sample in native runtime code was doing, when its frames cannot (stripped libcoreclr).</summary>
internal enum NativeWork : byte
{
    /// <summary>Nothing beyond the frames: the tags alone decide.</summary>
    None,
    /// <summary>Taken while the runtime was stopped for a GC: the GC's work, whatever the frames say.</summary>
    GcPause,
    /// <summary>Native code while the thread was compiling a method (its JIT span).</summary>
    Jit,
    /// <summary>Native code while the thread was loading a type (its type load span).</summary>
    TypeLoad,
    /// <summary>Code in no module and in no method the trace's events name: the runtime's stubs (precode, dispatch, call counting).</summary>
    Stub,
    /// <summary>Native code while the thread was dispatching an exception (its throw to its catch), or called from a throw site.</summary>
    ExceptionDispatch,
}

/// <summary>
/// The rule that splits native runtime time by what the trace itself can tell apart (docs/analyzer.md, "Native
/// runtime"): a GC pause holds the sample (the GC's work on that thread); else, when the sample ends in native code
/// (its leaf is not managed), the thread's JIT, type load or exception dispatch span at that time, from the runtime's events; else a leaf
/// in anonymous code no method owns is a stub. The answer is given to the classifier as one frame in front of the
/// stack, named as the runtime's symbols would name that work, so it ranks like any frame: a user's tag ranked
/// above still claims it, as in WPA. Hot methods and call trees keep the real frames.
/// </summary>
internal static class NativeExplanation
{
    public static readonly StackFrame GcWork = new("libcoreclr.so", "WKS::gc_heap::garbage_collect");
    /// <summary>The JIT's entry point: matched by the JIT tag (libclrjit.*), as the JIT's own frames are.</summary>
    public static readonly StackFrame JitWork = new("libclrjit.so", "CILJit::compileMethod");
    /// <summary>The type loader's entry point: matched by Native runtime\Type loading.</summary>
    public static readonly StackFrame TypeLoadWork = new("libcoreclr.so", "ClassLoader::LoadTypeHandleForTypeKey");
    /// <summary>The runtime's exception dispatcher: matched by the Exceptions tag (libcoreclr.*, *DispatchManagedException*).</summary>
    public static readonly StackFrame ExceptionWork = new("libcoreclr.so", "DispatchManagedException");
    /// <summary>Matched by Native runtime\Stubs; perf names such code "jitted-code" (W^X's double mapping) or "?" (anonymous memory).</summary>
    public static readonly StackFrame StubWork = new("jitted-code", "[stub]");

    /// <param name="throwSite">Whether the sample's first managed frame returns to a throw call site (<see cref="ThrowCallSites"/>): asked only
    /// for native samples no span explains.</param>
    public static NativeWork Of(bool inGc, RuntimeWork? work, int threadId, double timeMs, StackFrame[] framesLeafFirst, ThrowSiteTest throwSite = default)
    {
        if (inGc) return NativeWork.GcPause;
        if (framesLeafFirst.Length == 0 || !IsNative(framesLeafFirst[0])) return NativeWork.None;
        switch (work?.At(threadId, timeMs))
        {
            case RuntimeWorkKind.Jit: return NativeWork.Jit;
            case RuntimeWorkKind.TypeLoad: return NativeWork.TypeLoad;
            case RuntimeWorkKind.ExceptionDispatch: return NativeWork.ExceptionDispatch;
        }
        if (IsAnonymousCode(framesLeafFirst[0])) return NativeWork.Stub;
        return throwSite.Holds() ? NativeWork.ExceptionDispatch : NativeWork.None;
    }

    /// <summary>A sample's stack against the throw call sites, asked lazily (a stack walk per native sample no span explains).</summary>
    public readonly struct ThrowSiteTest(ThrowCallSites? sites, Stacks.ISampleStacks? stacks, int stackId)
    {
        public bool Holds() => sites is not null && stacks is not null && stackId >= 0 && sites.Contains(stacks.ManagedCallerAddress(stackId));
    }

    /// <returns>The frame that says it, or null for <see cref="NativeWork.None"/>.</returns>
    public static StackFrame? FrameOf(NativeWork why) => why switch
    {
        NativeWork.GcPause => GcWork,
        NativeWork.Jit => JitWork,
        NativeWork.TypeLoad => TypeLoadWork,
        NativeWork.Stub => StubWork,
        NativeWork.ExceptionDispatch => ExceptionWork,
        _ => null,
    };

    /// <summary>
    /// Native as the frame namers spell it: shared objects, the kernel, the native DLLs of Windows, and code without
    /// a name. A named frame in module "?" is a dynamic method (managed code); "jitted-code" is code perf found in the
    /// JIT's memory that no method event names, i.e. a stub.
    /// </summary>
    public static bool IsNative(StackFrame f)
    {
        var module = f.Module;
        if (module == "?") return f.Method == StackFrame.Unresolved;
        if (module is "kernel" or "jitted-code" or "[vdso]") return true;
        // Once per sample: spans, not substrings.
        var file = module.AsSpan(module.LastIndexOfAny(s_separators) + 1);
        return file.EndsWith(".so", StringComparison.Ordinal) || file.Contains(".so.", StringComparison.Ordinal)
            || s_windowsNative.Contains(file);
    }

    private static readonly char[] s_separators = ['/', '\\'];

    private static readonly HashSet<string>.AlternateLookup<ReadOnlySpan<char>> s_windowsNative = new HashSet<string>(StringComparer.OrdinalIgnoreCase)
    {
        "coreclr.dll", "clrjit.dll", "clr.dll", "mscorwks.dll", "ntdll.dll", "ntoskrnl.exe", "kernelbase.dll", "kernel32.dll",
    }.GetAlternateLookup<ReadOnlySpan<char>>();

    /// <summary>Code in no module and in no method: "?" (anonymous memory) or "jitted-code" (the JIT's double-mapped memory).</summary>
    public static bool IsAnonymousCode(StackFrame f) =>
        f.Module == "jitted-code" || (f.Module == "?" && f.Method == StackFrame.Unresolved);

    /// <summary>The JIT's own frames say what they are (the JIT tag matches its module).</summary>
    public static bool IsJitModule(StackFrame f) =>
        f.Module.EndsWith("libclrjit.so", StringComparison.Ordinal) || f.Module.EndsWith("clrjit.dll", StringComparison.OrdinalIgnoreCase);
}
