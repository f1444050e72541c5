using EtwSerializerProfiler.Common;
using Microsoft.Diagnostics.NETCore.Client;

namespace EtwSerializerProfiler.Recorder.EventPipe;

/// <summary>
/// The profile's stack keywords (the runtime's lock waits) in a session with stacks, beside a main session without
/// them (<see cref="EventPipeProviders.StackSide"/>). EventPipe has one stack flag per session: a stack walk per
/// allocation tick, JIT or type-load event cost about 5% of an allocation-heavy case, and the analysis read none of
/// those stacks (docs/recorder.md#stacks-only-where-read). Without a folder the events go nowhere: the tracing-cost
/// blocks' scratch copy, which only costs what the real one costs.
/// </summary>
internal sealed class StackSession : IAsyncDisposable
{
    private readonly EventPipeSession _session;
    private readonly Task _copy;
    private readonly Lock _gate = new();
    private Task? _stop;

    private StackSession(EventPipeSession session, Task copy, IReadOnlyList<EventPipeProvider> providers) => (_session, _copy, Providers) = (session, copy, providers);

    /// <summary>What it records (a scratch copy for the tracing-cost blocks records the same).</summary>
    public IReadOnlyList<EventPipeProvider> Providers { get; }

    /// <summary>Starts the session (before the runtime resumes, so every event is in it); null when there is nothing to record.</summary>
    /// <param name="folder">The trace folder (its file: <see cref="TraceFolderLayout.StacksTrace"/>); null: a scratch copy.</param>
    public static StackSession? Start(DiagnosticsClient client, IReadOnlyList<EventPipeProvider> providers, string? folder, List<string> warnings)
    {
        if (providers.Count == 0) return null;
        var session = client.StartEventPipeSession(new EventPipeSessionConfiguration(providers, EventPipeRecorder.CircularBufferMB / 4, requestRundown: false, requestStackwalk: true));
        return new StackSession(session, SideSessionStream.CopyAsync(session, folder is null ? null : Path.Combine(folder, TraceFolderLayout.StacksTrace), warnings), providers);
    }

    /// <summary>Stops the session and waits for its file (idempotent: every exit path calls it, and each waits for the one stop).</summary>
    public Task StopAsync()
    {
        lock (_gate) return _stop ??= StopOnceAsync();
    }

    private async Task StopOnceAsync()
    {
        // A stream that has ended (the process exited) needs no stop; a stop sent then could wait on a dead port.
        if (!_copy.IsCompleted) await ExceptionSessions.StopBoundedAsync(_session).ConfigureAwait(false);
        await EventPipeRecorder.WaitQuietly(_copy, TimeSpan.FromSeconds(60)).ConfigureAwait(false);
        _session.Dispose();
    }

    public async ValueTask DisposeAsync() => await StopAsync().ConfigureAwait(false);
}
