using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Profiles;

namespace EtwSerializerProfiler.Tests.Recorder.Profiles;

public sealed class CpuSamplingTests
{
    private static readonly TraceProfile Default = ProfileCatalog.Get("default");

    [Fact]
    public void The_default_profile_samples_every_ms_on_bare_metal_and_every_2_ms_on_a_virtual_machine()
    {
        Assert.Equal((1.0, null), (CpuSampling.Resolve(Default, null, linuxVirtualMachine: false).Profile.CpuSamplingMs, CpuSampling.Resolve(Default, null, false).Why));
        var (vm, why) = CpuSampling.Resolve(Default, null, linuxVirtualMachine: true);
        Assert.Equal(2.0, vm.CpuSamplingMs);
        Assert.StartsWith("CPU samples every 2 ms: a virtual machine", why, StringComparison.Ordinal);
        Assert.Contains("1 ms on bare metal", why, StringComparison.Ordinal);
    }

    [Fact]
    public void The_option_wins_and_a_profile_without_sampling_stays_without()
    {
        var (asked, why) = CpuSampling.Resolve(Default, 0.5, linuxVirtualMachine: true);
        Assert.Equal(0.5, asked.CpuSamplingMs);
        Assert.Equal("CPU samples every 0.5 ms (--cpu-sample-ms; the profile's: 1 ms)", why);
        Assert.Null(CpuSampling.Resolve(Default, 1, linuxVirtualMachine: false).Why);
        var off = Default with { CpuSamplingMs = 0 };
        Assert.Equal(0, CpuSampling.Resolve(off, null, linuxVirtualMachine: true).Profile.CpuSamplingMs);
        var unset = Default with { VirtualMachineCpuSamplingMs = null };
        Assert.Equal(1.0, CpuSampling.Resolve(unset, null, linuxVirtualMachine: true).Profile.CpuSamplingMs);
    }

    [Fact]
    public void The_hypervisor_flag_is_read_from_the_first_flags_line()
    {
        Assert.True(Hypervisor.FlagsSayHypervisor(["processor\t: 0", "flags\t\t: fpu vme de hypervisor lahf_lm", "flags\t\t: fpu"]));
        Assert.False(Hypervisor.FlagsSayHypervisor(["processor\t: 0", "flags\t\t: fpu vme de lahf_lm", "flags\t\t: hypervisor"]));
        Assert.False(Hypervisor.FlagsSayHypervisor(["flags\t\t: fpu hypervisorx"]));
        Assert.False(Hypervisor.FlagsSayHypervisor(["Features\t: fp asimd"]));
    }
}
