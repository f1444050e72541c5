using System.Globalization;

namespace EtwSerializerProfiler.Common;

/// <summary>
/// The ETW recorder's exit handshake: a rundown (the runtime naming its precompiled and already jitted code) can only
/// come from a live process, so the benchmark, about to exit, says so over a named pipe the recorder created before
/// starting it (--exit-pipe NAME) and waits; the recorder asks that one process for its rundown, waits until the trace
/// stops growing, and lets it go. One line each way:
/// <code>
/// benchmark → recorder   exiting PID    results are written; the benchmark now blocks
/// recorder → benchmark   go             rundown done (or given up); the benchmark exits
/// </code>
/// Both sides have limits and end-of-stream means "the other side is gone", so neither can hang the other: the
/// recorder's rundown gives up after 15 s, the benchmark waits a minute.
/// </summary>
public static class ExitHandshake
{
    /// <summary>The benchmark option that names the pipe; the recorder adds it, users never need to.</summary>
    public const string Option = "exit-pipe";
    public const string Exiting = "exiting";
    public const string Go = "go";

    /// <summary>How long the benchmark tries to connect (the pipe exists before the benchmark starts).</summary>
    public static readonly TimeSpan ConnectTimeout = TimeSpan.FromSeconds(15);

    /// <summary>How long the benchmark waits for "go": longer than the recorder's rundown limit, so the recorder answers first.</summary>
    public static readonly TimeSpan BenchmarkWaitLimit = TimeSpan.FromSeconds(60);

    public static string ExitingMessage(int processId) => Exiting + " " + processId.ToString(CultureInfo.InvariantCulture);

    /// <summary>The process id of an "exiting PID" line; null for anything else.</summary>
    public static int? ParseExiting(string? line)
    {
        if (line is null || !line.StartsWith(Exiting + " ", StringComparison.Ordinal)) return null;
        return int.TryParse(line.Substring(Exiting.Length + 1), NumberStyles.None, CultureInfo.InvariantCulture, out var pid) ? pid : null;
    }
}
