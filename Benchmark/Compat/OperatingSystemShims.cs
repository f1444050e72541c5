namespace EtwSerializerProfiler.Compat;

/// <summary>.NET Framework has no OperatingSystem.IsWindows() and friends; it also runs on Windows only.</summary>
internal static class OperatingSystemShims
{
    extension(OperatingSystem)
    {
        public static bool IsWindows() => Environment.OSVersion.Platform == PlatformID.Win32NT;

        public static bool IsLinux() => false;

        public static bool IsMacOS() => false;
    }
}
