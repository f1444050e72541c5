using System.Globalization;

namespace EtwSerializerProfiler.Common;

/// <summary>
/// manifest.json's "kernel.died": the kernel session's process (perf) ended on its own while the recorded process
/// still ran (killed, crashed). Its data stops there; the EventPipe session went on.
/// </summary>
public sealed record KernelSessionDeath
{
    /// <summary>How it ended, in the recorder's words ("perf (pid 123) was killed by signal 9 (SIGKILL)").</summary>
    public required string Reason { get; init; }
    /// <summary>Seconds after the recording started (manifest "startTimeUtc").</summary>
    public double AtSeconds { get; init; }
    public DateTime AtUtc { get; init; }

    public string Describe() => string.Create(CultureInfo.InvariantCulture, $"the kernel session died {AtSeconds:F1} s after esp record started ({AtUtc:HH:mm:ss} UTC): {Reason}");
}
