namespace EtwSerializerProfiler.Common;

/// <summary>How a recording ended: manifest.json's "status" (written by name).</summary>
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
    /// <summary>The disk filled up: the sessions were stopped there and what reached the disk kept (manifest "cut").</summary>
    DiskFull,
    /// <summary>Writing the trace failed for another reason (an I/O error, the folder removed); as DiskFull otherwise.</summary>
    WriteFailed,
}
