using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Samples;

/// <summary>What the runtime's own events say a thread was doing natively: compiling a method, loading a type, dispatching an exception.</summary>
internal enum RuntimeWorkKind
{
    /// <summary>MethodJittingStarted to the method's MethodLoad on the same thread (JitInfo.GetCompilationTime's span; paired by JitCollector).</summary>
    Jit,
    /// <summary>TypeLoadStart to its TypeLoadStop on the same thread (keyword TypeDiagnostic, 0x8000000000).</summary>
    TypeLoad,
    /// <summary>
    /// An exception's dispatch: its throw (Exception/Start) to its end (Exception/Stop), on the same thread (keyword
    /// Exception, 0x8000): both passes over the stack, the stack trace's capture, the catch and the resume after it.
    /// Ending at ExceptionCatch/Start instead left 42% of the base64 scenario's CPU in the stripped runtime, under
    /// the throwing method: the unwind after the catch is native work too (9% left with Exception/Stop).
    /// </summary>
    ExceptionDispatch,
}

/// <summary>
/// Per thread, the spans in which the runtime's events put it inside the JIT or the type loader: what a sample in
/// stripped native code was doing, which its frames cannot say. Only the outermost span of each kind is kept (type
/// loads nest; a JIT asks for type loads): when both kinds hold a time, the one that began first is what the thread
/// set out to do, so a type load the JIT asked for is JIT, as JitInfo.GetCompilationTime counts it.
/// </summary>
internal sealed class RuntimeWork
{
    /// <summary>Per thread, per kind (by its value), outermost spans sorted by start (within a kind they do not overlap) and their starts.</summary>
    private readonly Dictionary<int, (Interval[] Spans, double[] Starts)[]> _byThread;

    private static readonly RuntimeWorkKind[] s_kinds = Enum.GetValues<RuntimeWorkKind>();

    private RuntimeWork(Dictionary<int, (Interval[] Spans, double[] Starts)[]> byThread) => _byThread = byThread;

    public static readonly RuntimeWork None = new([]);

    public bool IsEmpty => _byThread.Count == 0;

    /// <summary>The kind of the outermost span of <paramref name="threadId"/> holding the time, or null.</summary>
    public RuntimeWorkKind? At(int threadId, double ms)
    {
        if (!_byThread.TryGetValue(threadId, out var byKind)) return null;
        RuntimeWorkKind? found = null;
        var foundStart = double.PositiveInfinity;
        foreach (var kind in s_kinds)
        {
            var (spans, starts) = byKind[(int)kind];
            if (SortedIntervals.Holding(spans, starts, ms) is not { } span || span.StartMs >= foundStart) continue;
            (found, foundStart) = (kind, span.StartMs);
        }
        return found;
    }

    /// <summary>
    /// Collects spans in time order: whole ones (JIT, paired by JitCollector), nested start/stop events matched by id
    /// (type loads), or one open span per thread closed by another event (exception dispatch).
    /// </summary>
    public sealed class Builder
    {
        private readonly Dictionary<(int Thread, RuntimeWorkKind Kind), List<(long Id, double StartMs)>> _open = [];
        private readonly Dictionary<int, List<(RuntimeWorkKind Kind, Interval Span)>> _spans = [];

        /// <summary>A span paired elsewhere; spans of one kind on one thread must not overlap.</summary>
        public void Add(int threadId, RuntimeWorkKind kind, Interval span)
        {
            if (span.EndMs <= span.StartMs) return;
            if (!_spans.TryGetValue(threadId, out var spans)) _spans[threadId] = spans = [];
            spans.Add((kind, span));
        }

        public void Start(int threadId, RuntimeWorkKind kind, long id, double ms)
        {
            if (!_open.TryGetValue((threadId, kind), out var stack)) _open[(threadId, kind)] = stack = [];
            stack.Add((id, ms));
        }

        /// <summary>Closes the start with this id (and any abandoned starts inside it); the outermost close makes a span. Unmatched stops are ignored, unclosed starts dropped.</summary>
        public void Stop(int threadId, RuntimeWorkKind kind, long id, double ms)
        {
            if (!_open.TryGetValue((threadId, kind), out var stack)) return;
            // A loop, not FindLastIndex with a lambda: one stop per type load, and the lambda captured id each time.
            var at = stack.Count - 1;
            while (at >= 0 && stack[at].Id != id) at--;
            if (at < 0) return;
            var start = stack[at].StartMs;
            stack.RemoveRange(at, stack.Count - at);
            if (stack.Count == 0) Add(threadId, kind, new Interval(start, ms));
        }

        private readonly Dictionary<(int Thread, RuntimeWorkKind Kind), double> _single = [];

        /// <summary>Opens a span unless one of this kind is open on the thread (a span that does not nest: exception dispatch).</summary>
        public void Open(int threadId, RuntimeWorkKind kind, double ms) => _single.TryAdd((threadId, kind), ms);

        /// <summary>Closes the open span of this kind on the thread into a span; nothing when none is open.</summary>
        public void Close(int threadId, RuntimeWorkKind kind, double ms)
        {
            if (_single.Remove((threadId, kind), out var start)) Add(threadId, kind, new Interval(start, ms));
        }

        public RuntimeWork Build() =>
            new(_spans.ToDictionary(kv => kv.Key, kv => s_kinds.Select(k =>
            {
                var spans = kv.Value.Where(s => s.Kind == k).Select(s => s.Span).OrderBy(s => s.StartMs).ToArray();
                return (spans, spans.Select(s => s.StartMs).ToArray());
            }).ToArray()));

        /// <summary>The spans of one kind over all threads, in milliseconds.</summary>
        public double TotalMs(RuntimeWorkKind kind) =>
            _spans.Values.Sum(spans => spans.Where(s => s.Kind == kind).Sum(s => s.Span.EndMs - s.Span.StartMs));
    }
}
