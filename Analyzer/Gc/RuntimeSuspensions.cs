using EtwSerializerProfiler.Analyzer.Collections;
using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Gc;

/// <summary>
/// When the runtime stopped its threads, from the suspend/restart events (GCSuspendEEStart ... GCRestartEEStop). The
/// sampler suspends the runtime too, from its own thread, and its events interleave with a GC's: suspensions are
/// tracked per suspending thread, and only those that ran a GC (a GC reason, or a GCStart inside) are GC pauses, each
/// with its suspending part (until every thread stopped) and its restarting part (from the restart's start). The
/// others (EventPipe's sampler, tiering) are kept apart: a kernel session sees threads wait in them. The pauses are
/// kept, one entry per GC (chunked, <see cref="ChunkedList{T}"/>: a long trace collects a hundred thousand times),
/// because the CPU charge asks of every sample whether it fell in one; the parts are handed to the caller as each
/// pause ends (<see cref="RestartStop"/>), which counts them into the runs and keeps nothing per GC.
/// </summary>
internal sealed class RuntimeSuspensions
{
    private readonly Dictionary<int, Open> _open = [];

    private readonly record struct Open(double StartMs, double? SuspendedMs, double? RestartingMs, bool IsGc);

    /// <summary>Suspensions that ran a GC, start to restart's end.</summary>
    public ChunkedList<Interval> GcPauses { get; } = [];
    /// <summary>Suspensions without a GC.</summary>
    public ChunkedList<Interval> Other { get; } = [];

    /// <summary>Whether any thread has the runtime suspended now (a GC runs inside a suspension).</summary>
    public bool AnyOpen => _open.Count > 0;

    public void SuspendStart(int threadId, double ms, bool forGc) => _open[threadId] = new(ms, null, null, forGc);

    public void Suspended(int threadId, double ms)
    {
        if (_open.TryGetValue(threadId, out var s)) _open[threadId] = s with { SuspendedMs = ms };
    }

    public void GcStarted(int threadId)
    {
        if (_open.TryGetValue(threadId, out var s)) _open[threadId] = s with { IsGc = true };
    }

    public void RestartStart(int threadId, double ms)
    {
        if (_open.TryGetValue(threadId, out var s)) _open[threadId] = s with { RestartingMs = ms };
    }

    /// <summary>Closes the thread's suspension; a stop without its start (lost, or before the trace) is ignored.</summary>
    /// <returns>The GC pause it ended, with its parts; null when the suspension ran no GC (or had no start).</returns>
    public GcPause? RestartStop(int threadId, double ms)
    {
        if (!_open.Remove(threadId, out var s)) return null;
        if (!s.IsGc)
        {
            Other.Add(new Interval(s.StartMs, ms));
            return null;
        }
        var pause = new Interval(s.StartMs, ms);
        GcPauses.Add(pause);
        return new GcPause(pause,
            s.SuspendedMs is { } suspended ? new Interval(s.StartMs, suspended) : null,
            s.RestartingMs is { } restarting ? new Interval(restarting, ms) : null);
    }
}
