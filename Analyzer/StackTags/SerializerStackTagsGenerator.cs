using System.Text;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.StackTags;

/// <param name="Name">Display name, becomes the tag level under Serialize\ and Deserialize\ (e.g. "Newtonsoft.Json").</param>
/// <param name="ClassFullName">Namespace-qualified class whose Serialize*/Deserialize* methods mark the serializer's own time.</param>
/// <param name="LibraryAssembly">The serializer library's assembly ("Newtonsoft.Json"), when it is not the benchmark itself.</param>
/// <param name="LibraryNamespace">The namespace its code lives in ("System.Xml.Serialization" inside System.Private.Xml).</param>
public sealed record SerializerTagInfo(string Name, string ClassFullName, string? LibraryAssembly = null, string? LibraryNamespace = null);

/// <summary>
/// Writes the benchmark's stack tags file. The output is checked in and diffed, so it is byte-for-byte deterministic:
/// everything is sorted with ordinal comparison and newlines are always "\n".
/// </summary>
public static class SerializerStackTagsGenerator
{
    /// <summary>
    /// The benchmark is SerializerBenchmark.dll on .NET and SerializerBenchmark.exe on .NET Framework; one pattern
    /// for both keeps tags comparable across runtimes.
    /// </summary>
    public const string BenchmarkModulePattern = "SerializerBenchmark.*";

    /// <summary>
    /// The run markers library (RunMarkers/): the marker thread and the run harness, in the benchmark and in any app that
    /// marks its own runs with it.
    /// </summary>
    public const string RunMarkersModulePattern = "EtwSerializerProfiler.RunMarkers.*";

    /// <summary>The access families (field, property, invoke, Emit) of <see cref="ReflectionSurface"/>: above the serializer tags, so WPA shows reflection under a serializer as reflection too.</summary>
    public const int ReflectionPriority = ReflectionSurface.AccessPriority;

    /// <summary>Above everything managed: GC and JIT interrupt whatever happens to run, and that code is not to blame.</summary>
    public const int RuntimePriority = 20;

    /// <summary>
    /// Serializer libraries by module: what finds serializer code in any app (no benchmark wrapper on the stack). Below
    /// the benchmark's own serializer tags, so inside the benchmark the wrapper (shallower) still names the operation.
    /// </summary>
    public const int LibraryPriority = -5;

    /// <summary>Below everything: the runner is on every stack and must only catch what nothing more specific claims.</summary>
    public const int InfrastructurePriority = -10;

    /// <summary>Type metadata queries (IsValueType, GetGenericArguments, ...): the lowest family but the catch-all.</summary>
    public const int TypeQueryPriority = ReflectionSurface.TypeQueryPriority;

    /// <summary>The tag's name under Reflection\ (docs and tests name it).</summary>
    public const string InterpretedInvokeTag = "Interpreted invoke";

    /// <summary>Sub-tags of Native runtime the trace's events tell apart (Analyzer/Samples/NativeExplanation.cs).</summary>
    public const string TypeLoadingTag = "Type loading";
    public const string StubsTag = "Stubs (no module, no method)";

    /// <summary>The runtime's type loader as its symbols name it (coreclr's clsload.cpp, methodtablebuilder.cpp).</summary>
    private static readonly string[] TypeLoaderMethods = ["ClassLoader::*", "MethodTableBuilder::*"];

    /// <summary>How the analyzer names kernel frames of perf samples (Analyzer/Kernel/KernelFrameNamer.cs).</summary>
    public const string KernelModule = "kernel";

    /// <summary>Page faults and system calls explain the kernel frames below them; above the serializers, below reflection.</summary>
    public const int KernelPathPriority = 2;

    /// <summary>The tag of throwing and catching exceptions (a verdict's cause with its thrower).</summary>
    public const string ExceptionsTag = "Exceptions";
    /// <summary>The allocator's zeroing of new memory (memset), under Native runtime.</summary>
    public const string MemoryClearingTag = "Memory clearing";

    private sealed record Node(string Name, int? Priority, List<Node> Children, List<(string Module, string Method)> Entrypoints)
    {
        public Node(string name, int? priority = null) : this(name, priority, [], []) { }

        public Node Add(Node child)
        {
            Children.Add(child);
            return this;
        }

        public Node Entry(string module, params string[] methods)
        {
            foreach (var method in methods) Entrypoints.Add((module, method));
            return this;
        }
    }

    public static string Generate(IEnumerable<SerializerTagInfo> serializers)
    {
        ArgumentNullException.ThrowIfNull(serializers);
        var list = serializers.ToList();
        foreach (var s in list)
        {
            if (string.IsNullOrWhiteSpace(s.Name)) throw new ArgumentException("serializer name is empty", nameof(serializers));
            if (string.IsNullOrWhiteSpace(s.ClassFullName)) throw new ArgumentException($"serializer '{s.Name}' has no class name", nameof(serializers));
        }
        var duplicate = list.GroupBy(s => s.Name, StringComparer.OrdinalIgnoreCase).FirstOrDefault(g => g.Count() > 1);
        if (duplicate is not null) throw new ArgumentException($"serializer name '{duplicate.Key}' appears more than once", nameof(serializers));

        var serialize = new Node("Serialize");
        var deserialize = new Node("Deserialize");
        foreach (var s in list)
        {
            serialize.Add(new Node(s.Name).Entry(BenchmarkModulePattern, s.ClassFullName + "::Serialize*"));
            deserialize.Add(new Node(s.Name).Entry(BenchmarkModulePattern, s.ClassFullName + "::Deserialize*"));
        }

        // One tag per library, named after the shortest serializer name that uses it (DataContract for its variants).
        var libraries = new Node("Serializer library");
        foreach (var lib in list.Where(s => s.LibraryAssembly is not null && s.LibraryNamespace is not null)
                     .GroupBy(s => (s.LibraryAssembly!, s.LibraryNamespace!)).OrderBy(g => g.Key.Item1, StringComparer.Ordinal))
        {
            var name = lib.Select(s => s.Name).OrderBy(n => n.Length).ThenBy(n => n, StringComparer.Ordinal).First();
            libraries.Add(new Node(name, LibraryPriority).Entry(lib.Key.Item1 + ".*", lib.Key.Item2 + ".*"));
        }

        // The reflection surface, one tag per API family (ReflectionSurface.cs). In WPA these rank by priority as
        // always; the analyzer also applies the owner rule (StackTagMatcher), which WPA cannot express: code called
        // through reflection is not reflection.
        var reflection = new Node(ReflectionSurface.ReflectionRoot);
        var activator = new Node(ReflectionSurface.ActivatorRoot);
        foreach (var family in ReflectionSurface.Families.GroupBy(f => f.TagPath))
        {
            var parts = family.Key.Split('\\', 2);
            var node = new Node(parts[1], family.First().Priority);
            foreach (var f in family)
                foreach (var module in f.Modules) node.Entry(module, [.. f.Methods]);
            (parts[0] == ReflectionSurface.ActivatorRoot ? activator : reflection).Add(node);
        }

        string[] gcMethods = ["WKS::*", "SVR::*", "*GarbageCollect*", "*gc_heap*"];
        var gc = new Node("GC", RuntimePriority)
            .Entry("coreclr.*", gcMethods)
            .Entry("libcoreclr.*", gcMethods)
            .Entry("clr.*", gcMethods)
            .Entry("*", "System.GC::*");

        var jit = new Node("JIT", RuntimePriority)
            .Entry("clrjit.*", "*")
            .Entry("libclrjit.*", "*")
            .Entry("*", "*ThePreStub*", "*MethodDesc::DoPrestub*");

        // Throwing and catching: the runtime's managed exception dispatch (.NET 9 and later: System.Runtime.EH), the
        // exception's own stack trace capture, and the runtime's native throw helpers where symbols name them. Ranked
        // with GC and JIT: a throw's cost is the exception's, whoever threw it (the verdict names the thrower).
        var exceptions = new Node(ExceptionsTag, RuntimePriority)
            .Entry("System.Private.CoreLib.*", "System.Runtime.EH::*", "System.Runtime.EH+*", "System.Runtime.ExceptionServices.*", "System.Exception::*", "System.Diagnostics.StackTrace::*", "System.Diagnostics.StackFrameHelper::*")
            .Entry("coreclr.*", "*IL_Throw*", "*DispatchManagedException*", "*ExceptionTracker*")
            .Entry("libcoreclr.*", "*IL_Throw*", "*DispatchManagedException*", "*ExceptionTracker*");

        // Native code and the kernel, as a kernel session sees them (perf on Linux, ETW's kernel stacks on Windows).
        // EventPipe stacks are managed-only and never reach these. At the serializers' priority, the deepest frame
        // wins, so the serializer's time spent in the runtime's native helpers is shown as such; reflection, which
        // ranks above, keeps the native work it causes ("under reflection frames").
        //
        // What the stripped runtime was doing, where the trace's events say it (esp analyze puts a frame named as the
        // runtime's symbols would name that work in front of such a sample: docs/analyzer.md, "Native runtime"): type
        // loading ranks with GC and JIT, above the code (reflection included) that asked for the type; stubs are
        // code in no module and in no method, at the leaf only.
        var nativeRuntime = new Node("Native runtime")
            .Add(new Node("Runtime (libcoreclr, stripped)").Entry("libcoreclr.*", "*").Entry("coreclr.*", "*"))
            .Add(new Node(TypeLoadingTag, RuntimePriority).Entry("libcoreclr.*", TypeLoaderMethods).Entry("coreclr.*", TypeLoaderMethods))
            .Add(new Node(StubsTag).Entry("jitted-code", "[stub]"))
            // Ranked one above the C library's catch-all: both match memset, and on a tie the first rule in the file wins.
            .Add(new Node(MemoryClearingTag, 1).Entry("libc.so*", "*memset*").Entry("ntdll.*", "RtlZeroMemory*", "memset*"))
            .Add(new Node("C library").Entry("libc.so*", "*").Entry("ld-linux*", "*").Entry("libstdc++*", "*").Entry("libgcc_s*", "*").Entry("libm.so*", "*"));

        // The kernel's generic frames (irq re-enable, scheduler) are leaves of many paths, so the paths that explain
        // them rank just above: a page fault with pvm_irq_enable as its leaf is a page fault.
        var kernel = new Node("Kernel")
            .Add(new Node("Page faults", KernelPathPriority).Entry(KernelModule, "asm_exc_page_fault", "exc_page_fault").Entry("ntoskrnl.*", "KiPageFault*"))
            .Add(new Node("System calls", KernelPathPriority).Entry(KernelModule, "entry_SYSCALL_64*").Entry("ntoskrnl.*", "KiSystemCall64*", "KiSystemServiceCopyEnd*"))
            .Add(new Node("Interrupts and signals", KernelPathPriority - 1).Entry(KernelModule, "asm_sysvec_*", "asm_common_interrupt", "irqentry_exit_to_user_mode", "arch_do_signal_or_restart"))
            .Add(new Node("Other").Entry(KernelModule, "*").Entry("ntoskrnl.*", "*"));

        // The marker thread blocks inside these NoInlining methods for exactly the measured interval: in the run markers
        // library, and in SerializerBenchmark itself in traces of benchmarks from before the library.
        var duration = new Node("Test Duration");
        foreach (var marker in RunEvents.MarkerMethodByOperation.Values)
            duration.Add(new Node(marker).Entry(BenchmarkModulePattern, "*::" + marker).Entry(RunMarkersModulePattern, "*::" + marker));
        // An app's own operations (RunMarkers' MarkerThread.WaitMethodByOperation): the marker waits in OtherDuration.
        duration.Add(new Node(RunEvents.OtherMarkerMethod).Entry(RunMarkersModulePattern, "*::" + RunEvents.OtherMarkerMethod));

        var infrastructure = new Node("Test Infrastructure", InfrastructurePriority)
            .Entry(BenchmarkModulePattern, [.. HarnessCode.Namespaces.Where(n => n.StartsWith("EtwSerializerProfiler.Benchmark.", StringComparison.Ordinal)).Select(n => n + ".*")])
            .Entry(RunMarkersModulePattern, [.. HarnessCode.Namespaces.Where(n => n.StartsWith("EtwSerializerProfiler.RunMarkers", StringComparison.Ordinal)).Select(n => n + ".*")]);

        var root = new Node("");
        foreach (var node in new[] { serialize, deserialize, libraries, reflection, activator, gc, jit, exceptions, nativeRuntime, kernel, duration, infrastructure })
            root.Add(node);

        var text = new StringBuilder();
        text.Append("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
        text.Append("<!--\n");
        text.Append("  Generated by `esp stacktags generate`. Do not edit by hand: changes are lost on the next generation.\n");
        text.Append("  Load it in WPA as a stack tags definition; the analyzer reads the same file.\n");
        text.Append("  A stack gets the tag of its deepest matching frame; a higher Priority beats depth.\n");
        text.Append("  esp analyze also applies the owner rule to the Reflection and Activator tags, which WPA cannot express:\n");
        text.Append("  code called through reflection is not reflection (docs/analyzer.md, \"Attribution\").\n");
        text.Append("-->\n");
        Write(text, root, 0);
        return text.ToString();
    }

    private static void Write(StringBuilder text, Node node, int depth)
    {
        var indent = new string(' ', depth * 2);
        text.Append(indent).Append("<Tag Name=\"").Append(Escape(node.Name)).Append('"');
        if (node.Priority is { } priority)
            text.Append(" Priority=\"").Append(priority.ToString(System.Globalization.CultureInfo.InvariantCulture)).Append('"');
        text.Append(">\n");

        foreach (var (module, method) in node.Entrypoints.Distinct()
                     .OrderBy(e => e.Module, StringComparer.Ordinal).ThenBy(e => e.Method, StringComparer.Ordinal))
        {
            text.Append(indent).Append("  <Entrypoint Module=\"").Append(Escape(module))
                .Append("\" Method=\"").Append(Escape(method)).Append("\"/>\n");
        }
        foreach (var child in node.Children.OrderBy(c => c.Name, StringComparer.Ordinal))
            Write(text, child, depth + 1);

        text.Append(indent).Append("</Tag>\n");
    }

    private static string Escape(string value)
    {
        var escaped = new StringBuilder(value.Length);
        foreach (var c in value)
        {
            escaped.Append(c switch
            {
                '&' => "&amp;",
                '<' => "&lt;",
                '>' => "&gt;",
                '"' => "&quot;",
                // Raw control characters would be normalized away (or rejected) by XML readers.
                < ' ' => $"&#x{(int)c:X};",
                _ => c.ToString(),
            });
        }
        return escaped.ToString();
    }
}
