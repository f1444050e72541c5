using System.Security;
using System.Text;

namespace EtwSerializerProfiler.Analyzer.StackTags;

/// <summary>
/// The owner rule: code called through reflection is not reflection. WPA's rule alone (priority, then depth) cannot
/// say it: a MethodInfo.Invoke at the root of every stack (BenchmarkDotNet, test runners, web frameworks' action
/// invokers) either wins every sample (priority above the code) or loses reflection done deeper down (priority below).
/// So the classifier first finds the frame that owns the sample: from the leaf up, the first frame that is reflection
/// (<see cref="ReflectionSurface"/>) or code (yours, a library's), skipping what only runs on their behalf: native
/// and kernel frames, unnamed frames and stubs, the runtime's helpers, and the core library outside the reflection
/// surface (reflection's own collections and string work, which reflection cannot call out of except into the code it
/// invokes). Reflection and Activator tags may then only come from that owner's frames: if the owner is reflection,
/// from its run of reflection frames (up to the first code frame above it); if it is code, from no frame above it.
/// Every other tag keeps WPA's semantics on the whole stack, so your own tags, GC and JIT still win where their
/// priority says so. Under a reflection owner, the native and runtime frames below it rank at the owner's depth, so
/// a page fault or an allocation inside FieldInfo.SetValue is reflection unless a tag of higher priority claims it.
/// </summary>
internal sealed partial class StackTagMatcher
{
    /// <summary>What a frame is to the owner rule.</summary>
    private enum FrameKind : byte
    {
        /// <summary>Managed code that is not reflection: can own a sample.</summary>
        Code,
        /// <summary>The reflection API surface: can own a sample.</summary>
        Surface,
        /// <summary>Runs on behalf of its caller: native, kernel, unnamed, stubs, the JIT's and GC's helpers.</summary>
        Runtime,
        /// <summary>The core library outside the reflection surface: its caller's, unless reflection invoked it.</summary>
        CoreLib,
    }

    /// <summary>The reflection families alone, which say whether (and as which family) a frame is reflection.</summary>
    private static readonly StackTagMatcher s_surface = new(StackTagFile.Parse(SurfaceXml(), "reflection surface"), ownerRule: false);

    /// <summary>How the stack resolvers name a frame nobody could name (kept here: StackTags depends on no other namespace).</summary>
    private const string UnresolvedMethod = "?";

    /// <summary>Native modules whose file names do not say so (Windows); on Linux ".so" does.</summary>
    private static readonly HashSet<string> s_nativeModules = new(StringComparer.Ordinal)
    {
        "KERNEL", "?", "JITTED-CODE", "[VDSO]", "CORECLR.DLL", "CLR.DLL", "CLRJIT.DLL", "MSCORWKS.DLL", "NTDLL.DLL",
        "NTOSKRNL.EXE", "KERNELBASE.DLL", "KERNEL32.DLL",
    };

    private static FrameKind KindOf(string module, string method, FrameNames names)
    {
        if (method.Length == 0 || method == UnresolvedMethod) return FrameKind.Runtime;
        if (s_surface.MatchFrame(module, method, names) is not null) return FrameKind.Surface;
        // A named frame in JIT memory no module owns is a dynamic method (DynamicMethod, a serializer's generated
        // reader): code. P/Invoke and other IL stubs are marshalling on their caller's behalf.
        if (names.Module == "?") return method.Contains("IL_STUB", StringComparison.Ordinal) ? FrameKind.Runtime : FrameKind.Code;
        if (s_nativeModules.Contains(names.Module) || names.Module.Contains(".SO", StringComparison.Ordinal)) return FrameKind.Runtime;
        // TraceEvent names managed methods Namespace.Type.Method(...); "::" is a native C++ symbol (WKS::gc_heap::...).
        if (method.Contains("::", StringComparison.Ordinal) || method.Contains("IL_STUB", StringComparison.Ordinal)) return FrameKind.Runtime;
        if (!IsCoreLib(names)) return FrameKind.Code;
        // Helpers the JIT calls on the code's behalf (casts, memory moves, statics): never an invoked method.
        return IsRuntimeHelper(names) ? FrameKind.Runtime : FrameKind.CoreLib;
    }

    /// <summary>
    /// The runtime's native code and what perf cannot name: no name, a shared object, the kernel, the runtime's own
    /// DLLs, a C++ symbol. Not the OS's DLLs (ntdll, kernelbase): a Windows stack of native code alone has frames the
    /// owner rule takes for code (user32.dll), under which those must keep WPA's rule.
    /// </summary>
    private static bool IsNative(string method, FrameNames names)
    {
        if (method.Length == 0 || method == UnresolvedMethod) return true;
        if (names.Module == "?") return false;
        return s_runtimeModules.Contains(names.Module) || names.Module.Contains(".SO", StringComparison.Ordinal)
            || (method.Contains("::", StringComparison.Ordinal) && !method.Contains("IL_STUB", StringComparison.Ordinal));
    }

    private static readonly HashSet<string> s_runtimeModules = new(StringComparer.Ordinal)
    {
        "KERNEL", "JITTED-CODE", "[VDSO]", "CORECLR.DLL", "CLR.DLL", "CLRJIT.DLL", "MSCORWKS.DLL",
    };

    private static bool IsCoreLib(FrameNames names) =>
        names.Module.StartsWith("SYSTEM.PRIVATE.CORELIB", StringComparison.Ordinal) || names.Module.StartsWith("MSCORLIB", StringComparison.Ordinal);

    private static bool IsRuntimeHelper(FrameNames names)
    {
        var m = names.ColonMethod;
        return (m.StartsWith("SYSTEM.RUNTIME.COMPILERSERVICES.", StringComparison.Ordinal) && m.Contains("HELPERS::", StringComparison.Ordinal))
            || m.StartsWith("SYSTEM.BUFFER::", StringComparison.Ordinal) || m.StartsWith("SYSTEM.SPANHELPERS::", StringComparison.Ordinal);
    }

    /// <summary>Reflection frames whose callee is the method reflection invokes, not reflection's own work.</summary>
    private static bool CallsTarget(string module, string method) =>
        s_surface.MatchFrame(module, method) == ReflectionSurface.InterpretedInvokeTag
        || method.StartsWith("InvokeStub_", StringComparison.Ordinal);

    /// <returns>The winning tag's index, or -1.</returns>
    private int Winner(ReadOnlySpan<FrameMatch> matches)
    {
        var n = matches.Length;
        var owner = -1;
        for (var i = 0; i < n && owner < 0; i++)
            if (IsOwner(matches, i)) owner = i;
        var reflectionOwner = owner >= 0 && matches[owner].Kind == FrameKind.Surface;
        // Reflection tags may come from frames below this index only: the owner's run of reflection frames, or, when
        // code owns the sample, the owner itself and what runs on its behalf below it.
        var reflectionEnd = n;
        if (reflectionOwner)
        {
            reflectionEnd = owner + 1;
            while (reflectionEnd < n && !(IsOwner(matches, reflectionEnd) && matches[reflectionEnd].Kind != FrameKind.Surface)) reflectionEnd++;
        }
        else if (owner >= 0)
        {
            reflectionEnd = owner + 1;
        }

        int best = -1, bestPriority = 0, bestDepth = 0;
        var bestReflection = false;
        for (var i = 0; i < n; i++)
        {
            var m = matches[i];
            if (m.TagIndex < 0 || (m.ReflectionTag && i >= reflectionEnd)) continue;
            // Native frames above the owner called into managed code (an invoke, a static constructor, a callback):
            // the sample is that code's work, not theirs, whatever tag they have.
            if (owner >= 0 && i > owner && m.Native) continue;
            // Under a reflection owner, the frames working for it compete at its depth, and a tie goes to reflection.
            var depth = reflectionOwner && i < owner && !m.ReflectionTag ? owner : i;
            if (best >= 0 && !(m.Priority > bestPriority
                || (m.Priority == bestPriority && (depth < bestDepth || (depth == bestDepth && m.ReflectionTag && !bestReflection)))))
                continue;
            (best, bestPriority, bestDepth, bestReflection) = (m.TagIndex, m.Priority, depth, m.ReflectionTag);
        }
        return best;
    }

    /// <summary>Reflection or code; a core-library method too when reflection invoked it (a setter of a framework type).</summary>
    private static bool IsOwner(ReadOnlySpan<FrameMatch> matches, int i)
    {
        switch (matches[i].Kind)
        {
            case FrameKind.Code or FrameKind.Surface: return true;
            case FrameKind.Runtime: return false;
        }
        var caller = i + 1;
        while (caller < matches.Length && matches[caller].Kind == FrameKind.Runtime) caller++;
        return caller < matches.Length && matches[caller].CallsTarget;
    }

    private static string SurfaceXml()
    {
        var xml = new StringBuilder("<Tag Name=\"\">");
        foreach (var f in ReflectionSurface.Families)
        {
            xml.Append("<Tag Name=\"").Append(SecurityElement.Escape(f.TagPath)).Append("\" Priority=\"").Append(f.Priority).Append("\">");
            foreach (var module in f.Modules)
                foreach (var method in f.Methods)
                    xml.Append("<Entrypoint Module=\"").Append(SecurityElement.Escape(module)).Append("\" Method=\"").Append(SecurityElement.Escape(method)).Append("\"/>");
            xml.Append("</Tag>");
        }
        return xml.Append("</Tag>").ToString();
    }
}
