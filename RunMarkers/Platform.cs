#if !NET
using System.Runtime.InteropServices;
#endif

namespace EtwSerializerProfiler.RunMarkers;

/// <summary>Which OS this is: OperatingSystem's checks where they exist (.NET 5+), RuntimeInformation's on netstandard2.0.</summary>
internal static class Platform
{
#if NET
    public static bool IsWindows => OperatingSystem.IsWindows();
    public static bool IsLinux => OperatingSystem.IsLinux();
    public static bool IsMacOS => OperatingSystem.IsMacOS();
#else
    public static bool IsWindows => RuntimeInformation.IsOSPlatform(OSPlatform.Windows);
    public static bool IsLinux => RuntimeInformation.IsOSPlatform(OSPlatform.Linux);
    public static bool IsMacOS => RuntimeInformation.IsOSPlatform(OSPlatform.OSX);
#endif
}
