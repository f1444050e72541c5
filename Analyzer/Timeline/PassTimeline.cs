using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Timeline;

/// <summary>A run event as it happened, for replaying run detection against another source's events (the kernel session's switches).</summary>
internal readonly record struct RunMark(double TimeMs, RunMarkKind Kind, int MarkerThreadId, int WorkerThreadId);

internal enum RunMarkKind { Start, Begin, End, Stop }

/// <summary>
/// What the EventPipe pass learned about time that a second source needs: when the runtime was suspended (for a GC
/// or for anything else, such as EventPipe's own sampler), which thread waited for which lock when, the run events,
/// and the clock that maps raw timestamps onto the trace's milliseconds.
/// </summary>
internal sealed class PassTimeline
{
    public KernelClock Clock { get; } = new();
    /// <summary>The pass's own list (not a copy: one entry per GC).</summary>
    public IReadOnlyList<Interval> GcPauses { get; set; } = [];
    public IReadOnlyList<Interval> OtherSuspensions { get; set; } = [];
    public List<(int ThreadId, Interval Wait)> Contention { get; } = [];
    public List<RunMark> RunMarks { get; } = [];
}
