namespace EtwSerializerProfiler.Analyzer;

public sealed record AnalyzerOptions
{
    /// <summary>Case-insensitive serializer names to keep; empty = all.</summary>
    public IReadOnlyList<string> Serializers { get; init; } = [];
    /// <summary>
    /// The user's stack tags files (--stacktags), read together with the built-in serializer tags (the trace
    /// folder's copy, else the tool's generated one), or instead of them with <see cref="StackTagsOnly"/>.
    /// </summary>
    public IReadOnlyList<string> StackTagsPaths { get; init; } = [];
    /// <summary>Use only <see cref="StackTagsPaths"/>, not the built-in serializer tags (--stacktags-only).</summary>
    public bool StackTagsOnly { get; init; }
    /// <summary>Collect hot methods (exclusive/inclusive) for --top.</summary>
    public bool CollectHotMethods { get; init; }
    /// <summary>Reuse/keep the .etlx conversion next to the trace so a second analysis is fast (when one is made: see <see cref="ThroughTraceLog"/>).</summary>
    public bool CacheEtlx { get; init; } = true;
    /// <summary>
    /// Read an EventPipe trace by converting it to .etlx (TraceLog), as ETW traces are, instead of one raw pass;
    /// the raw pass falls back to this by itself where it could differ (--etlx; the golden tests read both ways).
    /// </summary>
    public bool ThroughTraceLog { get; init; }
    /// <summary>Charge CPU from the trace folder's kernel session (perf) when there is one; false = EventPipe's sampler only.</summary>
    public bool UseKernelSession { get; init; } = true;
    /// <summary>
    /// Folders of native debug files (--symbols): the kernel session's native frames are named again by `perf script`
    /// with them (Analyzer/Symbols), instead of the names perf gave at recording time.
    /// </summary>
    public IReadOnlyList<string> SymbolFolders { get; init; } = [];
    /// <summary>
    /// Keep every charged sample with its stack (<see cref="Model.TraceAnalysis.Samples"/>) for the call trees and
    /// speedscope files (CallTrees/RunStackCollector). One entry per sample: `esp analyze` keeps them only when it
    /// writes --html or --speedscope, so the tables alone do not hold the trace's length in memory.
    /// </summary>
    public bool KeepChargedSamples { get; init; } = true;
    /// <summary>
    /// Keep what happened when (<see cref="Model.TraceMarks"/>: each GC, throw, JIT compilation, lock wait and off-CPU
    /// stretch) and every thread's charged samples, not only the runs': the time line --firefox draws.
    /// </summary>
    public bool KeepMarks { get; init; }
    /// <summary>
    /// Records per chunk of the kernel session (<see cref="Kernel.KernelChunks.RecordsPerChunk"/>): the bound on what a
    /// chunk holds. Not a user setting: tests set it small to hold every figure to the same answer however the
    /// records are cut.
    /// </summary>
    internal int KernelRecordsPerChunk { get; init; } = DefaultKernelRecordsPerChunk;
    /// <summary>Declared here, not in Kernel/, so that the options (which every stage reads) use no stage back.</summary>
    internal const int DefaultKernelRecordsPerChunk = 8_192;
    /// <summary>
    /// GC parts that wait before the pass tries to count them into runs (<see cref="Processing.Collectors.RunGcs.SettleEvery"/>).
    /// Not a user setting: tests set it to 1 to hold every run's GC figures to the same answer however often they settle.
    /// </summary>
    internal int GcSettleEvery { get; init; } = DefaultGcSettleEvery;
    internal const int DefaultGcSettleEvery = 1024;

    /// <remarks>Asked for every event (the pass's run filter): indexed, not a lambda that captures or an enumerator (20 MB of closures on a long trace).</remarks>
    public bool Includes(string serializer)
    {
        if (Serializers.Count == 0) return true;
        for (var i = 0; i < Serializers.Count; i++)
            if (Serializers[i].Equals(serializer, StringComparison.OrdinalIgnoreCase)) return true;
        return false;
    }
}
