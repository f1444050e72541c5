namespace EtwSerializerProfiler.Common;

/// <summary>A problem the user can fix (bad option, missing file). Printed as one line; exit code 2.</summary>
public sealed class UsageException(string message) : Exception(message);

/// <summary>Input that cannot be analyzed (wrong format, corrupt file). Printed as one line; exit code 3.</summary>
public sealed class BadInputException(string message, Exception? inner = null) : Exception(message, inner);

public static class ExitCodes
{
    public const int Ok = 0;
    public const int Failed = 1;
    public const int Usage = 2;
    public const int BadInput = 3;
    /// <summary>A bug in esp, not the user's doing (sysexits' EX_SOFTWARE): still one line, never a stack dump.</summary>
    public const int InternalError = 70;
    public const int Interrupted = 130;
}
