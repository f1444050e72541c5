using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.Benchmark.Runs.Warmup;

/// <summary>One warm-up run as the stopping rule sees it. Times are ms on one clock (the case's first run starts at 0).</summary>
public readonly record struct WarmupSample(double StartMs, double EndMs, int Operations, double PerOperationMs);

/// <summary>
/// What the stopping rule decides on: the case's warm-up runs so far, and the JIT's state around them.
/// </summary>
/// <param name="LastCompileMs">
/// When the JIT was last seen compiling anything in the process (the end of the interval in which its method count
/// last rose, so never early), on the samples' clock: before 0 when the last compile happened before this case.
/// Null when the runtime has no JIT counter: the durations decide alone.
/// </param>
/// <param name="CodeSteadyBefore">
/// An earlier case of the same serializer and operation (another N) ended at steady state: the code it calls every
/// operation has been promoted already, so this case need not count calls again (it still waits for a quiet JIT).
/// </param>
/// <param name="Tiering">
/// The runtime's tiering machine by its own events (<see cref="TieringWatch"/>), its last event on the samples' clock;
/// null without those events (.NET Framework, no tiering, or none seen yet): the JIT's count then decides alone.
/// </param>
public sealed record WarmupHistory(IReadOnlyList<WarmupSample> Runs, double? LastCompileMs, bool CodeSteadyBefore = false, TieringView? Tiering = null)
{
    public IReadOnlyList<WarmupSample> Runs { [MethodImpl(HarnessCode.Optimized)] get; init; } = Runs;
    public double NowMs => Runs.Count == 0 ? 0 : Runs[^1].EndMs;
}

/// <summary>
/// The tiering machine's phase and queue as the stopping rule sees them: its last event on the samples' clock (ms), and
/// the longest an event has taken to reach the listener (a promotion queued just now may not have shown yet).
/// </summary>
public readonly record struct TieringView(TieringPhase Phase, int Pending, double LastEventMs, double DeliveryMs = 0);

/// <summary>The rule's answer after a run: go on, or stop (at steady state, or at a bound).</summary>
public sealed record WarmupVerdict(bool Done, bool Steady, string Reason)
{
    public static readonly WarmupVerdict Continue = new(false, false, "");
}
