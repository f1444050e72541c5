using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Contracts;

/// <summary>The analyzer's fast read of the kernel session's period agrees with the manifest record that wrote it.</summary>
public sealed class ManifestKernelPeriodTests
{
    [Fact]
    public void A_recorded_manifest_gives_the_period_the_record_reads()
    {
        var path = Path.Combine(Repo.Root, "Tests", "Fixtures", "Manifest", "kernel-session.manifest.json");
        Assert.Equal(TraceManifest.Load(path).Kernel!.CpuSamplePeriodNs, ManifestKernelPeriod.TryRead(path));
        Assert.Equal(1_001_001, ManifestKernelPeriod.TryRead(path));
    }

    [Theory]
    [InlineData(250_000L)]
    [InlineData(4_000_000L)]
    [InlineData(null)]
    public void What_the_record_writes_is_read_back(long? periodNs)
    {
        // The names are the record's, through the manifest's own naming policy: a rename breaks this, not a folder.
        Assert.Same(System.Text.Json.JsonNamingPolicy.CamelCase, TraceManifest.JsonOptions.PropertyNamingPolicy);
        var manifest = new TraceManifest
        {
            RecorderVersion = "0.1.0", Backend = TraceManifest.EventPipeBackend, Profile = "default", ProfileDescription = "d",
            Providers = [new ManifestProvider("P", "0x1", "Verbose", ["GC"])], CommandLine = "x", RecorderRuntime = ".NET 10",
            OperatingSystem = "Linux", StartTimeUtc = DateTime.UnixEpoch,
            Kernel = new KernelSessionInfo { Status = KernelSessionInfo.Recorded, CpuSamplePeriodNs = periodNs, Events = ["cpu-clock"] },
            HeapSnapshots = [new HeapSnapshotInfo { Serializer = "S", Data = "BookShelf", Objects = 10, Status = HeapSnapshotStatus.Taken }],
        };
        Assert.Equal(periodNs, ManifestKernelPeriod.TryParse(System.Text.Encoding.UTF8.GetBytes(manifest.ToJson())));
        Assert.Null(ManifestKernelPeriod.TryParse(System.Text.Encoding.UTF8.GetBytes((manifest with { Kernel = null }).ToJson())));
    }

    [Theory]
    [InlineData("")]
    [InlineData("{")]
    [InlineData("[]")]
    [InlineData("null")]
    [InlineData("{\"kernel\":{\"cpuSamplePeriodNs\":\"1001001\"}}")]
    [InlineData("{\"kernel\":{\"cpuSamplePeriodNs\":1.5e6}}")]
    [InlineData("{\"kernel\":{\"cpuSamplePeriodNs\":0}}")]
    [InlineData("{\"kernel\":{\"cpuSamplePeriodNs\":-5}}")]
    [InlineData("{\"kernel\":[{\"cpuSamplePeriodNs\":1001001}]}")]
    [InlineData("{\"cpuSamplePeriodNs\":1001001,\"other\":{\"kernel\":{\"cpuSamplePeriodNs\":1001001}}}")]
    [InlineData("{\"kernel\":{\"status\":\"recorded\",\"cpuSamplePeriodNs\":1001001")]
    public void Anything_else_is_no_period(string text) =>
        Assert.Null(ManifestKernelPeriod.TryParse(System.Text.Encoding.UTF8.GetBytes(text)));

    [Fact]
    public void The_period_is_found_past_nested_values_and_the_last_duplicate_wins_as_in_the_serializer()
    {
        const string text = "{\"providers\":[{\"kernel\":{\"cpuSamplePeriodNs\":7}}],\"kernel\":{\"events\":[\"a\",{\"cpuSamplePeriodNs\":8}],\"cpuSamplePeriodNs\":5,\"cpuSamplePeriodNs\":1001001},\"x\":1}";
        Assert.Equal(1_001_001, ManifestKernelPeriod.TryParse(System.Text.Encoding.UTF8.GetBytes(text)));
    }

    [Fact]
    public void A_missing_file_is_no_period()
    {
        Assert.Null(ManifestKernelPeriod.TryRead(null));
        Assert.Null(ManifestKernelPeriod.TryRead(Path.Combine(Path.GetTempPath(), $"esp-none-{Guid.NewGuid():N}.json")));
    }
}
