using System.Globalization;

namespace EtwSerializerProfiler.Common;

/// <summary>
/// Where a recording was cut by a failed write (manifest.json's "cut"): the reason as the OS gave it, when (seconds
/// after the recording started, and UTC) and how many trace bytes had reached the disk.
/// </summary>
public sealed record RecordingCut
{
    public required string Reason { get; init; }
    public required double AtSeconds { get; init; }
    public DateTime AtUtc { get; init; }
    public long TraceBytes { get; init; }

    /// <summary>One line for the analysis's warnings: where the data stops.</summary>
    public string Describe() => string.Create(CultureInfo.InvariantCulture,
        $"the recording was cut {AtSeconds:F1} s after it started ({AtUtc:HH:mm:ss} UTC), after {TraceBytes / 1048576.0:F1} MB of trace: {Reason}; the results cover what was recorded before it");
}
