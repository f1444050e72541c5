using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Timeline;

/// <summary>
/// A run named but not yet opened: RunStart's fields (or another harness's iteration start), waiting for the window's
/// opening edge (the worker's RunBegin, the marker's wait, or RunStop when neither came).
/// </summary>
/// <param name="Warmup">RunStart version 1 says which runs are warm-ups; null from version 0.</param>
/// <param name="Operations">Calls the run makes (at least 1); 1 from version 0.</param>
internal sealed record RunStarted(RunKey Key, string Data, int MarkerThreadId, int WorkerThreadId, double TimeMs, bool? Warmup, long Operations)
{
    /// <summary>Other threads that work for the run (RunThread events after RunStart: the benchmark's --threads crew).</summary>
    public List<int> CrewThreadIds { get; } = [];
}
