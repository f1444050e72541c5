using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder;

public sealed record RecordingOutcome
{
    public required RecordingStatus Status { get; init; }
    /// <summary>The exit code of a process esp started; null for one it attached to.</summary>
    public required int? ChildExitCode { get; init; }
    /// <summary>Attached (--pid): whether the process exited while recorded (true) or ran on after the recording (false); null when esp started it.</summary>
    public bool? AttachedExited { get; init; }
    public required int ChildProcessId { get; init; }
    public required long TraceBytes { get; init; }
    public required TimeSpan Duration { get; init; }
    /// <summary>The recorder's own CPU time from the start of the recording until its streams ended (kernel conversion not included).</summary>
    public TimeSpan? RecorderCpu { get; init; }
    public bool Incomplete => Status is RecordingStatus.ChildCrashed or RecordingStatus.Interrupted or RecordingStatus.DiskFull or RecordingStatus.WriteFailed;
    /// <summary>DiskFull/WriteFailed: where the trace was cut.</summary>
    public RecordingCut? Cut { get; init; }
    public List<string> Warnings { get; init; } = [];
}
