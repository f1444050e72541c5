namespace EtwSerializerProfiler.RunMarkers;

/// <summary>
/// One run as the app measured it in-process: the truth a trace's analysis of the same run can be checked against.
/// </summary>
public readonly struct RunTiming
{
    internal RunTiming(RunInfo run, RunWindow window, long? allocatedBytes)
    {
        Info = run;
        Window = window;
        AllocatedBytes = allocatedBytes;
    }

    /// <summary>What the run was, with the number it was given.</summary>
    public RunInfo Info { get; }
    /// <summary>The run's number within its name, operation and N, from 0, warm-ups included.</summary>
    public int Run => Info.Run;
    /// <summary>The Stopwatch between RunBegin and RunEnd: the body and nothing else (RunStop's DurationMs).</summary>
    public double DurationMs => Window.DurationMs;
    /// <summary>The Stopwatch around the RunBegin/RunEnd writes: the trace's window lies between this and <see cref="DurationMs"/>.</summary>
    public double OuterDurationMs => Window.OuterDurationMs;
    /// <summary>The calling thread's CPU time over the window, read next to the Stopwatch (the process's where the OS has no thread clock).</summary>
    public double CpuMs => Window.ThreadCpuMs;
    /// <summary>Bytes the calling thread allocated, read just outside the window; null on .NET Framework (no such counter).</summary>
    public long? AllocatedBytes { get; }
    /// <summary>The OS thread ids of the worker and the marker, as the trace has them.</summary>
    public RunWindow Window { get; }
}
