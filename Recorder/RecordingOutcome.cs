namespace EtwSerializerProfiler.Recorder;

public enum RecordingStatus
{
    /// <summary>The child ran to completion with exit code 0 and the session ended with rundown.</summary>
    Complete,
    /// <summary>Ctrl+C: the session was stopped (with rundown) and the child was stopped.</summary>
    Interrupted,
    /// <summary>The child exited with a non-zero code; the trace is kept up to that point.</summary>
    ChildFailed,
    /// <summary>The child was killed or crashed (signal); the trace is kept but has no rundown.</summary>
    ChildCrashed,
}

public sealed record RecordingOutcome
{
    public required RecordingStatus Status { get; init; }
    public required int ChildExitCode { get; init; }
    public required int ChildProcessId { get; init; }
    public required long TraceBytes { get; init; }
    public required TimeSpan Duration { get; init; }
    public bool Incomplete => Status is RecordingStatus.ChildCrashed or RecordingStatus.Interrupted;
    public List<string> Warnings { get; init; } = [];
}
