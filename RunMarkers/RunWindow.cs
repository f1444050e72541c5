namespace EtwSerializerProfiler.RunMarkers;

/// <summary>What <see cref="RunMarker.Measure(RunInfo, Action, IRunProbe?)"/> measured: the window the trace sees, timed in-process.</summary>
public readonly struct RunWindow
{
    /// <summary>A measured window.</summary>
    public RunWindow(double durationMs, double outerDurationMs, double threadCpuMs, int workerThreadId, int markerThreadId)
    {
        DurationMs = durationMs;
        OuterDurationMs = outerDurationMs;
        ThreadCpuMs = threadCpuMs;
        WorkerThreadId = workerThreadId;
        MarkerThreadId = markerThreadId;
    }

    /// <summary>The Stopwatch between RunBegin and RunEnd: the body and nothing else (RunStop's DurationMs).</summary>
    public double DurationMs { get; }
    /// <summary>The Stopwatch around the RunBegin/RunEnd writes: a trace's window lies between the two durations.</summary>
    public double OuterDurationMs { get; }
    /// <summary>
    /// The worker's CPU time over the window: its thread CPU clock, read right next to the two Stopwatch reads (the
    /// process's CPU where the OS has no thread clock). Work the body hands to other threads is not in it.
    /// </summary>
    public double ThreadCpuMs { get; }
    /// <summary>The OS thread that ran the body (RunStart's WorkerThreadId).</summary>
    public int WorkerThreadId { get; }
    /// <summary>The marker's OS thread (RunStart's MarkerThreadId).</summary>
    public int MarkerThreadId { get; }
}
