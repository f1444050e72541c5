namespace EtwSerializerProfiler.RunMarkers;

/// <summary>What <see cref="RunMarker.Measure"/> measured: the window the trace sees, timed in-process.</summary>
public readonly struct RunWindow
{
    /// <summary>A measured window.</summary>
    public RunWindow(double durationMs, double outerDurationMs, int workerThreadId, int markerThreadId)
    {
        DurationMs = durationMs;
        OuterDurationMs = outerDurationMs;
        WorkerThreadId = workerThreadId;
        MarkerThreadId = markerThreadId;
    }

    /// <summary>The Stopwatch between RunBegin and RunEnd: the body and nothing else (RunStop's DurationMs).</summary>
    public double DurationMs { get; }
    /// <summary>The Stopwatch around the RunBegin/RunEnd writes: a trace's window lies between the two durations.</summary>
    public double OuterDurationMs { get; }
    /// <summary>The OS thread that ran the body (RunStart's WorkerThreadId).</summary>
    public int WorkerThreadId { get; }
    /// <summary>The marker's OS thread (RunStart's MarkerThreadId).</summary>
    public int MarkerThreadId { get; }
}
