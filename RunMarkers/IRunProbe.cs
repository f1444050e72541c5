namespace EtwSerializerProfiler.RunMarkers;

/// <summary>
/// Reads counters just outside a run's window, on the worker thread: <see cref="BeforeRun"/> after RunStart and before
/// the marker is armed, <see cref="AfterRun"/> after the marker is released and before RunStop. So the counters cover
/// the same interval as the trace's window, plus the handshake (microseconds), and never the events' own JIT or writes.
/// The benchmark reads GC counts, GC pause, allocated bytes and JIT counters this way (and the process's CPU when a run
/// spans threads; one thread's CPU is read by the run marker itself, next to the Stopwatch).
/// </summary>
public interface IRunProbe
{
    /// <summary>Take the "before" readings.</summary>
    void BeforeRun();

    /// <summary>Take the "after" readings.</summary>
    void AfterRun();
}
