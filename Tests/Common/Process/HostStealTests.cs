using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Contracts;

/// <summary>/proc/stat's steal column: what the kernel session's on-CPU time may count beyond the thread CPU clock.</summary>
public sealed class HostStealTests
{
    [PlatformFact("Linux", "/proc/stat is Linux's")]
    public void Steal_is_read_in_ms_and_never_goes_back()
    {
        var first = HostSteal.ReadMs();
        Assert.NotNull(first);
        var line = File.ReadLines("/proc/stat").First().Split(' ', StringSplitOptions.RemoveEmptyEntries);
        Assert.True(first >= 10 * long.Parse(line[8], System.Globalization.CultureInfo.InvariantCulture) - 1e-9, $"{first} ms against {line[8]} ticks");
        Assert.True(HostSteal.ReadMs() >= first);
    }
}
