namespace EtwSerializerProfiler.RunMarkers;

/// <summary>A run between <see cref="RunMarker.Open"/> and <see cref="RunMarker.Close"/>: what Close needs to finish it.</summary>
internal readonly struct OpenRun(RunInfo run, IRunProbe? probe, int workerThreadId, int markerThreadId, long outerStart, long start, TimeSpan cpu, long exceptions)
{
    public RunInfo Run { get; } = run;
    public IRunProbe? Probe { get; } = probe;
    public int WorkerThreadId { get; } = workerThreadId;
    public int MarkerThreadId { get; } = markerThreadId;
    /// <summary>Stopwatch ticks before RunBegin was written.</summary>
    public long OuterStart { get; } = outerStart;
    /// <summary>Stopwatch ticks after RunBegin was written: the window's start.</summary>
    public long Start { get; } = start;
    /// <summary>The worker's CPU clock, read just before <see cref="Start"/>.</summary>
    public TimeSpan Cpu { get; } = cpu;
    /// <summary>The process's first-chance exceptions before RunStart (<see cref="FirstChanceCount"/>).</summary>
    public long Exceptions { get; } = exceptions;
}
