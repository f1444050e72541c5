namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// What happened when, as the pass met it: each GC, throw, JIT compilation, lock wait and off-CPU stretch with its
/// thread and time. The tables count these; the marks keep them one by one for a time line (Export/FirefoxExporter).
/// Kept only when <see cref="AnalyzerOptions.KeepMarks"/> is on: a long trace has one entry per event.
/// </summary>
public sealed record TraceMarks
{
    /// <summary>Each GC of the recorded process, at its GCStart, in time order.</summary>
    public IReadOnlyList<GcMark> Gcs { get; init; } = [];
    /// <summary>Each first-chance exception, at its throw, in the order the pass met them.</summary>
    public IReadOnlyList<ThrowMark> Throws { get; init; } = [];
    /// <summary>Each method compiled: MethodJittingStarted to its MethodLoad; <see cref="SpanMark.What"/> is the method.</summary>
    public IReadOnlyList<SpanMark> Jit { get; init; } = [];
    /// <summary>Each lock wait: ContentionStart to ContentionStop; <see cref="SpanMark.What"/> is the code that wanted the lock.</summary>
    public IReadOnlyList<SpanMark> LockWaits { get; init; } = [];
    /// <summary>Kernel session: each stretch a run's thread was off the CPU inside the run, by reason.</summary>
    public IReadOnlyList<OffCpuMark> OffCpu { get; init; } = [];
}

/// <summary>The marks while the pass and the kernel session's stages add to them; <see cref="Freeze"/> makes the model's.</summary>
internal sealed class TraceMarksDraft
{
    private readonly List<GcMark> _gcs = [];
    private readonly List<ThrowMark> _throws = [];
    private readonly List<SpanMark> _jit = [];
    private readonly List<SpanMark> _lockWaits = [];
    private readonly List<OffCpuMark> _offCpu = [];

    public void Gc(GcMark mark) => _gcs.Add(mark);
    public void Thrown(ThrowMark mark) => _throws.Add(mark);
    public void Jitted(SpanMark mark) => _jit.Add(mark);
    public void Waited(SpanMark mark) => _lockWaits.Add(mark);
    public void OffCpuStretch(OffCpuMark mark) => _offCpu.Add(mark);

    public TraceMarks Freeze() => new() { Gcs = _gcs, Throws = _throws, Jit = _jit, LockWaits = _lockWaits, OffCpu = _offCpu };
}

/// <summary>A GC as GCStart says it: its number, the generation collected, why and what kind (blocking, background).</summary>
public readonly record struct GcMark(double TimeMs, int ThreadId, int Number, int Generation, string Reason, string Type);

/// <summary>A throw: its thread, exception type and the frame that threw ("?" when its stack names nothing).</summary>
public readonly record struct ThrowMark(double TimeMs, int ThreadId, string Type, string Site);

/// <summary>A span of one thread's time and what it was about.</summary>
public readonly record struct SpanMark(int ThreadId, double StartMs, double EndMs, string What);

/// <summary>A stretch off the CPU inside a run, with its reason (Kernel/OffCpuClassifier's split).</summary>
public readonly record struct OffCpuMark(int ThreadId, double StartMs, double EndMs, OffCpuReason Reason);
