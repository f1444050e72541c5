using EtwSerializerProfiler.Analyzer.Input;
using Microsoft.Diagnostics.Tracing.Etlx;

namespace EtwSerializerProfiler.Analyzer.Processing.Sources;

/// <summary>A trace being opened: what a CPU source decides from whether it applies.</summary>
internal sealed record TraceOpening(TraceInput Input, TraceLog? Log);

/// <summary>Opens a CPU source for a trace, or returns null when it does not apply to that trace.</summary>
internal delegate ICpuSource? CpuSourceFactory(TraceOpening trace);

/// <summary>
/// The CPU sources, in order of preference: of those that apply to a trace, the first that supplies its CPU once
/// the pass is over is the trace's source. A new source is one <see cref="ICpuSource"/> class and its line here.
/// </summary>
internal static class CpuSources
{
    public static IReadOnlyList<CpuSourceFactory> Default { get; } = [KernelSessionCpu.Open, EtwProfileCpu.Open, EventPipeCpu.Open];

    /// <summary>The bias reason of a source of on-CPU time.</summary>
    public const string OnCpuBiasReason = "the on-CPU source disagrees with the thread's own clock (docs/analyzer.md#cpu-against-the-thread-clock)";

    public static IReadOnlyList<ICpuSource> Open(IReadOnlyList<CpuSourceFactory> registered, TraceOpening trace) =>
        [.. registered.Select(open => open(trace)).OfType<ICpuSource>()];
}
