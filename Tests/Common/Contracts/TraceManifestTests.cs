using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

// Not Tests.Common: that namespace would hide EtwSerializerProfiler.Common from the tests that write Common.ExitCodes.
namespace EtwSerializerProfiler.Tests.Contracts;

/// <summary>manifest.json as the shared record: the wire format of folders already recorded is kept exactly.</summary>
public sealed class TraceManifestTests
{
    private static string OldManifestPath => Path.Combine(Repo.Root, "Tests", "Fixtures", "Manifest", "kernel-session.manifest.json");

    [Fact]
    public void A_manifest_written_by_the_recorder_before_the_move_is_read_with_every_field()
    {
        var m = TraceManifest.Load(OldManifestPath);
        Assert.Equal(TraceManifest.EventPipeBackend, m.Backend);
        Assert.Equal(RecordingStatus.Complete, m.Status);
        Assert.Equal(TraceFolderLayout.Trace, m.TraceFile);
        Assert.Equal(TraceFolderLayout.ResultsJson, m.ResultsFile);
        Assert.Equal(TraceFolderLayout.StackTags, m.StackTagsFile);
        Assert.Equal(3, m.Providers.Count);
        Assert.Equal(["GC", "Loader", "Jit", "Exception", "Contention", "WaitHandle"], m.Providers[0].KeywordNames);
        var kernel = m.Kernel!;
        Assert.Equal(KernelSessionInfo.Recorded, kernel.Status);
        Assert.Equal(1_001_001, kernel.CpuSamplePeriodNs);
        Assert.Equal(PerfRecording.Clock, kernel.Clock);
        Assert.Equal(TraceFolderLayout.KernelScript, kernel.ScriptFile);
        Assert.Equal(TraceFolderLayout.KernelData, kernel.DataFile);
        Assert.Equal([PerfRecording.CpuClockSpec(1_001_001, stacks: true), PerfRecording.TracepointSpec(PerfRecording.SchedSwitch, true),
            PerfRecording.TracepointSpec(PerfRecording.SchedWaking, true)], kernel.Events);
    }

    [Fact]
    public void Written_back_it_is_the_same_bytes()
    {
        var old = File.ReadAllText(OldManifestPath);
        Assert.Equal(old, TraceManifest.Parse(old).ToJson());
    }

    [Fact]
    public void Save_then_Load_round_trips_every_field()
    {
        var m = new TraceManifest
        {
            RecorderVersion = "0.1.0",
            Backend = TraceManifest.EtwBackend,
            Profile = "gc",
            ProfileDescription = "d",
            Providers = [new ManifestProvider("P", "0x1", "Verbose", ["GC"])],
            CommandLine = "dotnet x.dll",
            Environment = new Dictionary<string, string> { ["DOTNET_TieredPGO"] = "0" },
            RecorderRuntime = ".NET 10",
            OperatingSystem = "Linux",
            StartTimeUtc = new DateTime(2026, 11, 22, 22, 3, 9, DateTimeKind.Utc),
            DurationSeconds = 1.5,
            Kernel = KernelSessionInfo.Off("--kernel off") with { Missing = ["x"] },
            Status = RecordingStatus.ChildCrashed,
            Incomplete = true,
            HeapSnapshots = [new HeapSnapshotInfo { Serializer = "S", Data = "BookShelf", Objects = 10, Status = HeapSnapshotStatus.Taken, File = TraceFolderLayout.HeapDumpFileName("S", 10) }],
            Warnings = ["w"],
        };
        var path = Path.Combine(Path.GetTempPath(), $"esp-manifest-{Guid.NewGuid():N}.json");
        try
        {
            m.Save(path);
            var back = TraceManifest.Load(path);
            Assert.Equal(m.ToJson(), back.ToJson());
            Assert.Equal(RecordingStatus.ChildCrashed, back.Status);
            Assert.Equal("0", back.Environment!["DOTNET_TieredPGO"]);
            Assert.Contains("\"status\": \"ChildCrashed\"", File.ReadAllText(path), StringComparison.Ordinal);
            Assert.DoesNotContain("\"kernelFlags\"", File.ReadAllText(path), StringComparison.Ordinal); // nulls left out
        }
        finally { File.Delete(path); }
    }

    [Fact]
    public void TryLoad_is_null_for_a_missing_damaged_or_partial_manifest()
    {
        var path = Path.Combine(Path.GetTempPath(), $"esp-manifest-{Guid.NewGuid():N}.json");
        try
        {
            Assert.Null(TraceManifest.TryLoad(null));
            Assert.Null(TraceManifest.TryLoad(path));
            foreach (var text in new[] { "", "{", "[]", "null", "{\"kernel\":{\"cpuSamplePeriodNs\":\"x\"}}" })
            {
                File.WriteAllText(path, text);
                Assert.Null(TraceManifest.TryLoad(path));
            }
        }
        finally { File.Delete(path); }
    }
}
