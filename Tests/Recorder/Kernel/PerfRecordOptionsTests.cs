using EtwSerializerProfiler.Recorder.Kernel;

namespace EtwSerializerProfiler.Tests.Recorder.Kernel;

/// <summary>
/// perf 5.1 and later poll for BPF program loads once a second, which holds every `perf record` for 1 s and its stop
/// for up to 1 s: esp turns that off where perf knows the option, and gives older perfs no option they would refuse.
/// </summary>
public sealed class PerfRecordOptionsTests
{
    [Theory]
    [InlineData("6.1.187", true)]
    [InlineData("5.1", true)]
    [InlineData("5.10.0-rc1", true)]
    [InlineData("5.0.21", false)]
    [InlineData("4.19.0", false)]
    [InlineData("unknown", false)]
    [InlineData(null, false)]
    public void Only_a_perf_that_knows_no_bpf_event_gets_it(string? version, bool given) =>
        Assert.Equal(given ? ["--no-bpf-event"] : [], PerfProbe.RecordOptions(version));
}
