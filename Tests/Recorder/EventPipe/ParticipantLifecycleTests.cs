using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Recorder.EventPipe;
using EtwSerializerProfiler.Recorder.Profiles;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Recorder.EventPipe;

/// <summary>
/// The recording's lifecycle on a real recording (SampleApp, EventPipe alone): a participant's hooks come in order;
/// the side sessions, which join after it, start after it (before the main session) and end before it, their file
/// complete; their manifest hook writes the fields RecordCommand once wrote by hand.
/// </summary>
[EndToEnd]
public sealed class ParticipantLifecycleTests : IDisposable
{
    private readonly string _dir = Repo.NewTempDir("participants");

    public void Dispose()
    {
        FileCleanup.TryDeleteDirectory(_dir);
    }

    [Fact]
    public async Task Hooks_run_in_order_around_a_recording_and_the_side_sessions_end_before_earlier_participants()
    {
        var trace = Path.Combine(_dir, TraceFolderLayout.Trace);
        var exceptions = Path.Combine(_dir, TraceFolderLayout.ExceptionsTrace);
        var watcher = new Watcher(trace, exceptions);
        await using var participants = new RecordingParticipants();
        participants.Add(watcher);
        using var cancel = new CancellationTokenSource(TimeSpan.FromMinutes(3));
        var command = new ChildCommand("dotnet", [Repo.WorkloadDll("SampleApp"), "--exceptions", "200", "--lock-threads", "2", "--truth", Path.Combine(_dir, "truth.json")],
            new Dictionary<string, string>());

        var outcome = await new EventPipeRecorder(TimeSpan.FromSeconds(60)).RecordAsync(command, ProfileCatalog.Get("default"), trace, null, cancel.Token, participants);
        var manifest = await participants.ManifestAsync(Manifest());

        Assert.Equal(RecordingStatus.Complete, outcome.Status);
        Assert.Equal(["launch", $"start {outcome.ChildProcessId}: no trace, no exceptions file", "exited False", "manifest"], watcher.Log);
        // The side sessions had ended when the watcher's exit hook ran: nothing was written to their file after it.
        Assert.True(watcher.ExceptionBytesAtExit > 0, "exceptions.nettrace was empty when the watcher's exit hook ran");
        Assert.Equal(watcher.ExceptionBytesAtExit, new FileInfo(exceptions).Length);
        Assert.Equal(TraceFolderLayout.ExceptionsTrace, manifest.ExceptionsFile);
        Assert.Equal((double?)1.0, manifest.CpuSamplingMs); // no kernel session: EventPipe's sampler, in the notes the side sessions write
        Assert.Contains(manifest.Dropped, d => d.StartsWith("kernel events", StringComparison.Ordinal));
    }

    private static TraceManifest Manifest() => new()
    {
        RecorderVersion = "0", Backend = TraceManifest.EventPipeBackend, Profile = "default", ProfileDescription = "", Providers = [], CommandLine = "SampleApp",
        RecorderRuntime = "", OperatingSystem = "", StartTimeUtc = DateTime.UtcNow, TraceFile = TraceFolderLayout.Trace,
    };

    private sealed class Watcher(string trace, string exceptions) : IRecordingParticipant
    {
        public List<string> Log { get; } = [];
        public long ExceptionBytesAtExit { get; private set; }

        public Task ChildLaunchingAsync(CancellationToken cancel) { Log.Add("launch"); return Task.CompletedTask; }

        public Task ChildStartingAsync(int processId, CancellationToken cancel)
        {
            Log.Add($"start {processId}: {(File.Exists(trace) ? "a trace" : "no trace")}, {(File.Exists(exceptions) ? "an exceptions file" : "no exceptions file")}");
            return Task.CompletedTask;
        }

        public Task ChildExitedAsync(bool interrupted)
        {
            Log.Add($"exited {interrupted}");
            ExceptionBytesAtExit = File.Exists(exceptions) ? new FileInfo(exceptions).Length : 0;
            return Task.CompletedTask;
        }

        public Task<TraceManifest> ManifestAsync(TraceManifest manifest) { Log.Add("manifest"); return Task.FromResult(manifest); }
    }
}
