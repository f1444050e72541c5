namespace EtwSerializerProfiler.Tests.Support;

/// <summary>
/// A fact that holds on one platform only. Elsewhere it is reported as skipped with the reason, never as a pass.
/// </summary>
public sealed class PlatformFactAttribute : FactAttribute
{
    /// <param name="platform">"Linux", "LinuxRoot", "Windows" or "NotWindows".</param>
    /// <param name="why">Why the test means nothing elsewhere, shown as the skip reason.</param>
    public PlatformFactAttribute(string platform, string why)
    {
        var holds = platform switch
        {
            "Linux" => OperatingSystem.IsLinux(),
            "Windows" => OperatingSystem.IsWindows(),
            "NotWindows" => !OperatingSystem.IsWindows(),
            // Root on Linux: tests that mount a file system (a small tmpfs; CI runs as root).
            "LinuxRoot" => OperatingSystem.IsLinux() && Environment.IsPrivilegedProcess,
            _ => throw new ArgumentException($"unknown platform '{platform}'", nameof(platform)),
        };
        if (!holds) Skip = $"{platform} only: {why}";
    }
}
