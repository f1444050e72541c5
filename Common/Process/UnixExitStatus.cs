namespace EtwSerializerProfiler.Common;

/// <summary>A process's exit status as .NET reports it on Unix (128+n: killed by signal n), in words.</summary>
public static class UnixExitStatus
{
    /// <summary>"was killed by signal 9 (SIGKILL)" or "exited with code 3".</summary>
    public static string InWords(int exitCode) => exitCode > 128 && exitCode <= 128 + 64
        ? $"was killed by signal {exitCode - 128}{SignalName(exitCode - 128)}"
        : $"exited with code {exitCode}";

    private static string SignalName(int signal) => signal switch
    {
        1 => " (SIGHUP)", 2 => " (SIGINT)", 6 => " (SIGABRT)", 9 => " (SIGKILL)", 11 => " (SIGSEGV)", 13 => " (SIGPIPE)", 15 => " (SIGTERM)",
        _ => "",
    };
}
