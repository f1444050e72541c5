namespace EtwSerializerProfiler.Common;

/// <summary>
/// Whether this Linux machine is a virtual machine: the CPU's "hypervisor" flag in /proc/cpuinfo (x86), else
/// /sys/hypervisor/type. There a sampler's timer interrupt exits to the host: perf's cpu-clock sample cost about
/// 20 µs on this project's machine (docs/recorder.md#the-sampler-alone), where bare metal pays a few.
/// </summary>
public static class Hypervisor
{
    /// <summary>True on a virtual machine; false on bare metal, on another OS, or when neither file can be read.</summary>
    public static bool Present()
    {
        if (!System.Runtime.InteropServices.RuntimeInformation.IsOSPlatform(System.Runtime.InteropServices.OSPlatform.Linux)) return false;
        try
        {
            if (File.Exists("/proc/cpuinfo") && FlagsSayHypervisor(File.ReadLines("/proc/cpuinfo"))) return true;
            return File.Exists("/sys/hypervisor/type") && File.ReadAllText("/sys/hypervisor/type").Trim().Length > 0;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return false;
        }
    }

    /// <summary>The first "flags" line of /proc/cpuinfo names the hypervisor flag.</summary>
    public static bool FlagsSayHypervisor(IEnumerable<string> cpuinfo)
    {
        foreach (var line in cpuinfo)
        {
            if (!line.StartsWith("flags", StringComparison.Ordinal)) continue;
            var colon = line.IndexOf(':', StringComparison.Ordinal);
            return colon > 0 && line[(colon + 1)..].Split(' ', StringSplitOptions.RemoveEmptyEntries).Contains("hypervisor", StringComparer.Ordinal);
        }
        return false;
    }
}
