using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Recorder.Profiles;

namespace EtwSerializerProfiler.Tests.Recorder;

/// <summary>The pre-flight check: refuse what cannot start, warn when less than a minute fits, say nothing otherwise.</summary>
public sealed class DiskSpaceCheckTests
{
    private const long MB = 1 << 20;

    [Fact]
    public void Every_profile_has_a_measured_rate()
    {
        Assert.All(ProfileCatalog.Load(), p => Assert.InRange(p.TraceMBPerSecond, 0.1, 100));
    }

    [Fact]
    public void Too_little_to_start_is_refused_a_tight_disk_warned_a_roomy_one_silent()
    {
        var profile = ProfileCatalog.Get("default");
        var refused = Assert.Throws<DiskFullException>(() => DiskSpaceCheck.Judge(1 * MB, "/x", profile, kernelSession: true));
        Assert.StartsWith("only 1.0 MB free at /x: a recording needs at least 3.0 MB to start", refused.Message, StringComparison.Ordinal);
        // 2.7 MB/s x 1.2 with the kernel session: 3.24 MB/s, so 60 s needs 194 MB beside the 2 MB reserve.
        Assert.Contains("about 1 s of recording fits", DiskSpaceCheck.Judge(5 * MB, "/x", profile, kernelSession: true), StringComparison.Ordinal);
        Assert.NotNull(DiskSpaceCheck.Judge(190 * MB, "/x", profile, kernelSession: true));
        Assert.Null(DiskSpaceCheck.Judge(200 * MB, "/x", profile, kernelSession: true));
        Assert.Null(DiskSpaceCheck.Judge(170 * MB, "/x", profile, kernelSession: false));
        Assert.Null(DiskSpaceCheck.Judge(40 * MB, "/x", ProfileCatalog.Get("gc"), kernelSession: false));
    }
}
