using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Profiles;
using Microsoft.Diagnostics.NETCore.Client;

namespace EtwSerializerProfiler.Recorder.EventPipe;

/// <summary>
/// The EventPipe sessions beside the main one, a participant of the recording: the profile's stackless keywords
/// (<see cref="ExceptionSessions"/>) and the keywords whose stacks the analysis reads (<see cref="StackSession"/>).
/// They start while the runtime waits at the diagnostic port, before the main session, whose providers and stack flag
/// they decide; they stop when the trace ends or the process exits.
/// </summary>
internal sealed class EventPipeSideSessions(DiagnosticsClient client, TraceProfile profile, IReadOnlyList<EventPipeProvider> providers, string folder,
    List<string> warnings, IProgress<string>? progress) : IRecordingParticipant, IAsyncDisposable
{
    public ExceptionSessions? Exceptions { get; private set; }
    public StackSession? Stacks { get; private set; }

    /// <summary>The stackless keywords in sessions of their own; none on a runtime that refused such a session.</summary>
    public IReadOnlyList<EventPipeProvider> Stackless { get; private set; } = EventPipeProviders.Stackless(profile);

    /// <summary>The main session's providers, the stack side's keywords still in (and the stackless ones, after a refusal).</summary>
    public IReadOnlyList<EventPipeProvider> MainProviders { get; private set; } = providers;

    /// <summary>The main session records without stacks: <see cref="StackSide"/>'s keywords have theirs in the stack session.</summary>
    public bool MainStackless { get; private set; }

    public IReadOnlyList<EventPipeProvider> StackSide { get; private set; } = [];

    /// <summary>The main session's configuration: without the stack side's keywords, and without stacks where they have them.</summary>
    public EventPipeSessionConfiguration MainSession => new(EventPipeProviders.Without(MainProviders, StackSide), EventPipeRecorder.CircularBufferMB, requestRundown: true, requestStackwalk: !MainStackless);

    /// <summary>What the tracing-cost blocks' scratch sessions copy, once the main session runs.</summary>
    public RealSessions Real => new(MainStackless ? EventPipeProviders.Without(MainProviders, StackSide) : MainProviders, MainStackless, Exceptions, Stackless, Stacks);

    public async Task ChildStartingAsync(int processId, CancellationToken cancel)
    {
        try
        {
            try
            {
                Exceptions = ExceptionSessions.Start(client, Stackless, folder, warnings, EventPipeProviders.StacklessMaxBytesPerSecond(profile));
            }
            catch (UnsupportedCommandException ex)
            {
                // .NET 8 refuses a session without stacks: its keywords go back into the main session, with stacks.
                var said = $"this runtime cannot record without stacks ({ex.Message}): exceptions are recorded with a stack each, in the main trace (costlier on exception-heavy code)";
                progress?.Report(said);
                warnings.Add(said);
                MainProviders = EventPipeProviders.WithStackless(MainProviders, Stackless);
                Stackless = [];
            }
            // The keywords whose stacks the analysis reads in a session of their own, and the main one without stacks
            // (not on a runtime that refused the stackless exception session: it would refuse this one too).
            MainStackless = (Stackless.Count > 0 || EventPipeProviders.Stackless(profile).Count == 0) && EventPipeProviders.MainWithoutStacks(profile, MainProviders);
            StackSide = MainStackless ? EventPipeProviders.StackSide(profile, MainProviders) : [];
            Stacks = StackSession.Start(client, StackSide, folder, warnings);
        }
        catch
        {
            // A start that failed half way is not ended by the recording: nothing of it may outlive it.
            await DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>A runtime that cannot record without stacks: one main session with a stack on every event, as before.</summary>
    public async Task StacksInMainAsync()
    {
        if (Stacks is not null) await Stacks.DisposeAsync().ConfigureAwait(false);
        Stacks = null;
        MainStackless = false;
        StackSide = [];
        FileCleanup.TryDelete(Path.Combine(folder, TraceFolderLayout.StacksTrace));
    }

    /// <summary>The trace ends (cut, --tracing-cost, Ctrl+C, a detach): the side sessions stop with it.</summary>
    public Task PauseAsync() => StopAsync();

    public Task ChildExitedAsync(bool interrupted) => StopAsync();

    /// <summary>Stops every side session and waits for their files (idempotent: each session stops once).</summary>
    private async Task StopAsync()
    {
        if (Exceptions is not null) await Exceptions.StopAsync().ConfigureAwait(false);
        if (Stacks is not null) await Stacks.StopAsync().ConfigureAwait(false);
    }

    public async ValueTask DisposeAsync()
    {
        if (Exceptions is not null) await Exceptions.DisposeAsync().ConfigureAwait(false);
        if (Stacks is not null) await Stacks.DisposeAsync().ConfigureAwait(false);
    }
}
