namespace EtwSerializerProfiler.Common;

/// <summary>esp's exit codes, one set for every command (README, "Exit codes"); Cli/CommandRunner maps exceptions to them.</summary>
public static class ExitCodes
{
    public const int Ok = 0;
    public const int Failed = 1;
    public const int Usage = 2;
    public const int BadInput = 3;
    /// <summary>`record`: the disk where the trace folder goes is full (too little free space to start, or a write failed mid-recording).</summary>
    public const int DiskFull = 4;
    /// <summary>`record`: writing the trace folder failed mid-recording for another reason (the folder removed, an I/O error).</summary>
    public const int WriteFailed = 5;
    /// <summary>A bug in esp, not the user's doing (sysexits' EX_SOFTWARE): still one line, never a stack dump.</summary>
    public const int InternalError = 70;
    public const int Interrupted = 130;
}
