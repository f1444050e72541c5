namespace EtwSerializerProfiler.Common;

/// <summary>
/// CPU time the hypervisor gave to other guests while this virtual machine's CPUs wanted it (/proc/stat "steal",
/// summed over CPUs). The kernel leaves it out of a thread's CPU clock (CONFIG_PARAVIRT_TIME_ACCOUNTING), while a
/// thread's time between its context switches counts it: the gap between the two for a run is at most the steal.
/// </summary>
public static class HostSteal
{
    /// <summary>/proc/stat counts in USER_HZ, 100 a second on Linux whatever the kernel's own tick.</summary>
    private const double MsPerTick = 10;

    /// <summary>Steal since boot in ms, or null where /proc/stat has no steal column (not Linux, old kernels).</summary>
    public static double? ReadMs()
    {
        try
        {
            using var reader = new StreamReader("/proc/stat");
            var fields = reader.ReadLine()?.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            // "cpu user nice system idle iowait irq softirq steal ..."
            return fields is { Length: > 8 } && fields[0] == "cpu" && long.TryParse(fields[8], System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var ticks)
                ? ticks * MsPerTick : null;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }
}
