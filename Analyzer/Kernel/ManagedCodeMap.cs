using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Input;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// Where each managed method's code lives, from the EventPipe trace's own events: MethodLoadVerbose for code
/// compiled during the trace (with its tier), and the end rundown for everything else, ReadyToRun code included.
/// This names JIT and ReadyToRun frames in perf samples without perf maps, and gives any sample's code its tier.
/// Built during the analysis pass (<see cref="Builder"/>), raw or TraceLog's (TraceLog keeps rundown method events to
/// itself unless the .etlx is converted with KeepAllEvents, which EtlxCache does). A raw pass names its own stacks
/// from it too (Stacks/RawEventPipeStacks), once the rundown at the end of the file has been read.
/// </summary>
internal sealed class ManagedCodeMap
{
    public sealed record Method(ulong Start, uint Size, string Name, string Module, CodeTier Tier, double LoadedMs)
    {
        /// <summary>Set once the module's name is known (<see cref="Builder.Build"/>): one object a method, not a copy.</summary>
        public string Module { get; internal set; } = Module;
    }

    private Method[] _byStart = [];

    public int Count => _byStart.Length;

    public static readonly ManagedCodeMap Empty = new();

    internal static ManagedCodeMap FromMethods(IEnumerable<Method> methods) => new() { _byStart = [.. methods.OrderBy(m => m.Start)] };

    /// <summary>The method whose code holds the address, or null. Code compiled later at a reused address loses to the code live at the time.</summary>
    public Method? Find(ulong address, double atMs = double.MaxValue)
    {
        var lo = 0;
        var hi = _byStart.Length - 1;
        var found = -1;
        while (lo <= hi)
        {
            var mid = (lo + hi) >>> 1;
            if (_byStart[mid].Start <= address) { found = mid; lo = mid + 1; }
            else hi = mid - 1;
        }
        Method? best = null;
        for (var i = found; i >= 0 && i > found - 8; i--)
        {
            var m = _byStart[i];
            if (address - m.Start >= m.Size) continue;
            if (best is null || (m.LoadedMs <= atMs && m.LoadedMs > best.LoadedMs) || (best.LoadedMs > atMs && m.LoadedMs < best.LoadedMs)) best = m;
        }
        return best;
    }

    public static CodeTier TierOf(OptimizationTier tier) => tier switch
    {
        OptimizationTier.QuickJitted => CodeTier.Tier0,
        OptimizationTier.QuickJittedInstrumented or OptimizationTier.OptimizedTier1Instrumented => CodeTier.Instrumented,
        OptimizationTier.OptimizedTier1OSR => CodeTier.Osr,
        OptimizationTier.OptimizedTier1 => CodeTier.Tier1,
        OptimizationTier.Optimized => CodeTier.Optimized,
        OptimizationTier.MinOptJitted => CodeTier.MinOpts,
        OptimizationTier.ReadyToRun or OptimizationTier.PreJIT => CodeTier.ReadyToRun,
        _ => CodeTier.Unknown,
    };

    /// <summary>TraceLog's spelling, so a method has one name whichever source saw it: Namespace.Type.Method(args).</summary>
    public static string FullName(ReadOnlySpan<char> ns, ReadOnlySpan<char> name, ReadOnlySpan<char> signature)
    {
        var paren = signature.IndexOf('(');
        return string.Concat(ns, ".", name, paren >= 0 ? signature[paren..] : []);
    }

    /// <summary>Collects methods and modules from the events of any pass (TraceLog's, or a raw EventPipe source's).</summary>
    public sealed class Builder
    {
        private Dictionary<ulong, (Method Method, long ModuleId)> _byStart = [];
        private readonly Dictionary<long, string> _modules = [];
        private Action<Method>? _loaded;

        /// <param name="loaded">Told of each method as it is added (with its module still "?"), for names needed before the pass ends.</param>
        public void Subscribe(TraceEventSource source, Action<Method>? loaded = null)
        {
            _loaded = loaded;
            source.Clr.LoaderModuleLoad += e => _modules[e.ModuleID] = FileName(e.ModuleILPath);
            var rundown = new ClrRundownTraceEventParser(source);
            rundown.LoaderModuleDCStop += e => _modules.TryAdd(e.ModuleID, FileName(e.ModuleILPath));
            source.Clr.MethodLoadVerbose += e => Add(e, TierOf(e.OptimizationTier), e.TimeStampRelativeMSec);
            // Rundown repeats jitted code already seen above (same start); what is new here is ReadyToRun code, which
            // has no load event and whose tier rundown leaves Unknown.
            rundown.MethodDCStopVerbose += e =>
            {
                if (_byStart.ContainsKey(e.MethodStartAddress)) return;
                var tier = TierOf(e.OptimizationTier);
                Add(e, tier == CodeTier.Unknown && !e.IsJitted ? CodeTier.ReadyToRun : tier, double.MinValue);
            };
        }

        private void Add(MethodLoadUnloadVerboseTraceData e, CodeTier tier, double loadedMs)
        {
            if (e.MethodSize <= 0) return;
            var name = NameOf(e);
            var method = new Method(e.MethodStartAddress, (uint)e.MethodSize, name, "?", tier, loadedMs);
            _byStart[e.MethodStartAddress] = (method, e.ModuleID);
            _loaded?.Invoke(method);
        }

        /// <summary>MethodID, ModuleID and MethodStartAddress (64-bit in every trace), MethodSize, MethodToken and MethodFlags; then the three names.</summary>
        private const int NamesAt = 8 + 8 + 8 + 4 + 4 + 4;

        /// <summary>
        /// <see cref="FullName"/> of the event's names, read in place from the payload: one string a method, where
        /// TraceEvent's getters made three and the name a fourth and fifth (10.7 MB of the README folder's 153 MB).
        /// A payload cut before a terminator is left to TraceEvent.
        /// </summary>
        internal static string NameOf(MethodLoadUnloadVerboseTraceData e)
        {
            var chars = PayloadFields.Utf16From(e, NamesAt);
            return PayloadFields.TakeString(ref chars, out var ns) && PayloadFields.TakeString(ref chars, out var name) && PayloadFields.TakeString(ref chars, out var signature)
                ? FullName(ns, name, signature)
                : FullName(e.MethodNamespace, e.MethodName, e.MethodSignature);
        }

        private static string FileName(string path) => string.IsNullOrEmpty(path) ? "?" : Path.GetFileName(path);

        public ManagedCodeMap Build()
        {
            // Module names can arrive after the methods that use them (rundown lists modules after methods).
            var methods = new Method[_byStart.Count];
            var i = 0;
            foreach (var (method, moduleId) in _byStart.Values)
            {
                method.Module = _modules.TryGetValue(moduleId, out var module) ? module : "?";
                methods[i++] = method;
            }
            // Built once (ManagedCodeStage): the map holds the methods, the builder's table goes.
            _byStart = [];
            // By start, each start one method: an array of objects sorts with the framework's precompiled code, where
            // LINQ over the (method, module) tuples ran as tier-0 JIT code in the ReadyToRun build.
            Array.Sort(methods, static (a, b) => a.Start.CompareTo(b.Start));
            return new ManagedCodeMap { _byStart = methods };
        }
    }
}
