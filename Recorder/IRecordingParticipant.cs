using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder;

/// <summary>
/// One part of a recording (a session, a pipe the benchmark answers on), called at the recording's lifecycle points
/// as BenchmarkDotNet calls its diagnosers: the benchmark's arguments, the child's launch, its start (its runtime still
/// waiting at the diagnostic port), the tracing-cost blocks, the child's exit, the manifest. Every hook does nothing
/// unless the participant needs it; <see cref="RecordingParticipants"/> calls them in order for `esp record`, `--pid`
/// and the BenchmarkDotNet diagnoser.
/// </summary>
public interface IRecordingParticipant
{
    /// <summary>Added to the benchmark's command line (the pipes it answers on).</summary>
    IReadOnlyList<string> BenchmarkArguments => [];

    /// <summary>It samples the CPU with stacks, so EventPipe's own sampler may be left out.</summary>
    bool SamplesCpu => false;

    /// <summary>
    /// A child esp starts is about to be launched (not called on --pid): a session that must see the process start
    /// (ETW's) starts here. A throw fails the recording; disposal ends what started.
    /// </summary>
    Task ChildLaunchingAsync(CancellationToken cancel) => Task.CompletedTask;

    /// <summary>The recorded process exists; on EventPipe, one esp started still waits at the diagnostic port. A throw fails the recording.</summary>
    Task ChildStartingAsync(int processId, CancellationToken cancel) => Task.CompletedTask;

    /// <summary>Its own process has ended (for whatever reason).</summary>
    bool Ended => false;

    /// <summary>
    /// Polled while the recorded process runs: when its own process has ended (killed, crashed), it is recorded once
    /// and said in one line; null while it records, and after that first line.
    /// </summary>
    string? NoticeDeath() => null;

    /// <summary>--tracing-cost (the trace ends) or a cut trace: it stops recording for good; it still ends as usual.</summary>
    Task PauseAsync() => Task.CompletedTask;

    /// <summary>
    /// --tracing-cost: one traced block, recording like the real session into a scratch file until the returned block
    /// is disposed (null when it cannot start).
    /// </summary>
    Task<IAsyncDisposable?> StartScratchAsync(int processId, CancellationToken cancel) => Task.FromResult<IAsyncDisposable?>(RecordingParticipants.NoBlock);

    /// <summary>--tracing-cost: the blocks are over; a scratch session left ends and its file goes.</summary>
    Task EndScratchAsync() => Task.CompletedTask;

    /// <summary>The recorded process has exited, was stopped (<paramref name="interrupted"/>) or detached from.</summary>
    Task ChildExitedAsync(bool interrupted) => Task.CompletedTask;

    /// <summary>What it adds to manifest.json, once the recording has ended.</summary>
    Task<TraceManifest> ManifestAsync(TraceManifest manifest) => Task.FromResult(manifest);
}
