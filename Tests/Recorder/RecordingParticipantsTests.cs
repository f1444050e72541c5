using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Recorder.EventPipe;

namespace EtwSerializerProfiler.Tests.Recorder;

/// <summary>
/// The recording's lifecycle (RecordingParticipants): every participant's hooks in the order they joined, the ends in
/// reverse; a participant that fails to start ends the ones started before it and no hook of those after it runs.
/// </summary>
public sealed class RecordingParticipantsTests
{
    [Fact]
    public async Task Hooks_are_called_in_lifecycle_order()
    {
        var log = new List<string>();
        var participants = new RecordingParticipants();
        participants.Add(new Logged("a", log));
        participants.Add(new Logged("b", log));
        participants.Add<Logged>(null);

        var command = participants.WithArguments(new ChildCommand("bench", ["--x"], new Dictionary<string, string>()));
        Assert.Equal(["--x", "--a", "--b"], command.Arguments);
        await participants.ChildLaunchingAsync(default);
        await participants.ChildStartingAsync(42, default);
        await participants.PauseAsync();
        await using (await participants.StartScratchAsync(default)) { }
        await participants.EndScratchAsync();
        await participants.ChildExitedAsync(interrupted: false);
        await participants.ChildExitedAsync(interrupted: false); // once each
        var manifest = await participants.ManifestAsync(Manifest());
        await participants.DisposeAsync();

        Assert.Equal([
            "a launch", "b launch", "a start 42", "b start 42", "a pause", "b pause", "a block 42", "b block 42", "a block ends", "b block ends",
            "a end blocks", "b end blocks", "b exited False", "a exited False", "a manifest", "b manifest", "b disposed", "a disposed"], log);
        Assert.Equal(["a", "b"], manifest.Warnings);
    }

    [Fact]
    public async Task A_participant_that_fails_to_start_stops_the_ones_started_before_it()
    {
        var log = new List<string>();
        var participants = new RecordingParticipants();
        participants.Add(new Logged("a", log));
        participants.Add(new Logged("b", log) { FailsToStart = true });
        participants.Add(new Logged("c", log));

        var ex = await Assert.ThrowsAsync<IOException>(() => participants.ChildStartingAsync(7, default));
        Assert.Equal("b refused", ex.Message);
        await participants.ChildExitedAsync(interrupted: true); // the recorder's own cleanup: nothing left to end
        Assert.Equal(["a start 7", "b start 7", "a exited True"], log);
        Assert.False(participants.AnyEnded);
        Assert.Null(participants.NoticeDeath());
    }

    [Fact]
    public async Task A_participant_without_blocks_leaves_a_traced_block_to_the_others()
    {
        var log = new List<string>();
        var participants = new RecordingParticipants();
        participants.Add(new Quiet());
        participants.Add(new Logged("a", log));
        await participants.ChildStartingAsync(1, default);
        var block = await participants.StartScratchAsync(default);
        Assert.NotNull(block);
        await block.DisposeAsync();
        Assert.Equal(["a start 1", "a block 1", "a block ends"], log);
    }

    [Fact]
    public async Task A_block_that_cannot_start_stops_the_blocks_started_before_it()
    {
        var log = new List<string>();
        var participants = new RecordingParticipants();
        participants.Add(new Logged("a", log));
        participants.Add(new Logged("b", log) { NoBlock = true });
        await participants.ChildStartingAsync(3, default);
        Assert.Null(await participants.StartScratchAsync(default));
        Assert.Equal(["a start 3", "b start 3", "a block 3", "b block 3", "a block ends"], log);
    }

    private static TraceManifest Manifest() => new()
    {
        RecorderVersion = "0", Backend = TraceManifest.EventPipeBackend, Profile = "p", ProfileDescription = "", Providers = [], CommandLine = "bench",
        RecorderRuntime = "", OperatingSystem = "", StartTimeUtc = DateTime.UnixEpoch, TraceFile = TraceFolderLayout.Trace,
    };

    private sealed class Quiet : IRecordingParticipant;

    private sealed class Logged(string name, List<string> log) : IRecordingParticipant, IAsyncDisposable
    {
        public bool FailsToStart { get; init; }
        public bool NoBlock { get; init; }
        public IReadOnlyList<string> BenchmarkArguments => ["--" + name];

        public Task ChildLaunchingAsync(CancellationToken cancel) { log.Add($"{name} launch"); return Task.CompletedTask; }

        public Task ChildStartingAsync(int processId, CancellationToken cancel)
        {
            log.Add($"{name} start {processId}");
            return FailsToStart ? Task.FromException(new IOException($"{name} refused")) : Task.CompletedTask;
        }

        public Task PauseAsync() { log.Add($"{name} pause"); return Task.CompletedTask; }

        public Task<IAsyncDisposable?> StartScratchAsync(int processId, CancellationToken cancel)
        {
            log.Add($"{name} block {processId}");
            return Task.FromResult<IAsyncDisposable?>(NoBlock ? null : new Ends(() => log.Add($"{name} block ends")));
        }

        public Task EndScratchAsync() { log.Add($"{name} end blocks"); return Task.CompletedTask; }
        public Task ChildExitedAsync(bool interrupted) { log.Add($"{name} exited {interrupted}"); return Task.CompletedTask; }

        public Task<TraceManifest> ManifestAsync(TraceManifest manifest)
        {
            log.Add($"{name} manifest");
            manifest.Warnings.Add(name);
            return Task.FromResult(manifest);
        }

        public ValueTask DisposeAsync() { log.Add($"{name} disposed"); return ValueTask.CompletedTask; }
    }

    private sealed class Ends(Action ends) : IAsyncDisposable
    {
        public ValueTask DisposeAsync() { ends(); return ValueTask.CompletedTask; }
    }
}
