namespace EtwSerializerProfiler.Workloads;

/// <summary>
/// One run of a runtime-work workload (JIT, type loading): the thread CPU time of its runtime-work chunks and of its
/// arithmetic chunks, GC pauses taken out (ChunkClock), and the JIT's own wall-clock count for the run's thread
/// (System.Runtime.JitInfo.GetCompilationTime(currentThread: true)) over the work chunks. OverheadMs: what the same
/// calls cost on items already done (the API's own code, no JIT or type load), per item measured before the runs,
/// times the items: WorkMs - OverheadMs is the runtime work itself.
/// </summary>
public sealed record RuntimeWorkTruth(string Workload, int Run, bool Warmup, double WorkMs, double ArithmeticMs, double JitWallMs, int Items, double OverheadMs);
