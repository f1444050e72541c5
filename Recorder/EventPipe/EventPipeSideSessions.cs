using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Profiles;
using Microsoft.Diagnostics.NETCore.Client;

namespace EtwSerializerProfiler.Recorder.EventPipe;

/// <summary>
/// The EventPipe sessions beside the main one, a participant of the recording: the profile's stackless keywords
/// (<see cref="ExceptionSessions"/>) and the keywords whose stacks the analysis reads (<see cref="StackSession"/>).
/// They start while the runtime waits at the diagnostic port, before the main session, whose providers and stack flag
/// they decide; they stop when the trace ends or the process exits. Their manifest fields come with the EventPipe
/// backend's notes, once the kernel session's are in.
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

    /// <summary>The providers asked for, before any was folded back in: the notes read the sampler from them.</summary>
    private readonly IReadOnlyList<EventPipeProvider> _requested = providers;

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

    public Task<TraceManifest> ManifestAsync(TraceManifest manifest) => Task.FromResult(WithNotes(manifest with
    {
        ExceptionsFile = File.Exists(Path.Combine(folder, TraceFolderLayout.ExceptionsTrace)) ? TraceFolderLayout.ExceptionsTrace : null,
        // The folder may be gone (removed mid-recording): the manifest then says so elsewhere.
        ExceptionStackFiles = Directory.Exists(folder) && Directory.GetFiles(folder, TraceFolderLayout.ExceptionStacksPattern) is { Length: > 0 } windows ? windows.Length : null,
        ExceptionsStoppedAtSeconds = Exceptions?.StoppedAtSeconds,
        StacksOnlyFor = MainStackless ? StackSide.Select(p => $"{p.Name}:0x{p.Keywords:X}").ToList() : null,
    }));

    /// <summary>The EventPipe backend's notes on what it did not record, once the kernel session's outcome is in the manifest.</summary>
    private TraceManifest WithNotes(TraceManifest manifest)
    {
        var kernel = manifest.Kernel;
        var dropped = new List<string>();
        var sampler = _requested.Any(p => p.Name.Equals(KeywordNames.SampleProfilerProvider, StringComparison.OrdinalIgnoreCase));
        if (profile.Kernel is not null && kernel?.Status != KernelSessionInfo.Recorded)
            dropped.Add("kernel events (CPU sampling, context switches): no kernel session (see \"kernel\"); EventPipe samples managed stacks instead");
        if (profile.Providers.Any(p => p.Etw is not null))
            dropped.Add(manifest.StacksOnlyFor switch
            {
                null => "per-event stack and event-ID filters: ETW only; EventPipe captures a stack with every event",
                [] => "per-event stack and event-ID filters: ETW only; EventPipe has one stack flag per session: the main session has none (no event of this profile needs one)",
                var only => $"per-event stack and event-ID filters: ETW only; EventPipe has one stack flag per session: the main session has none, {string.Join(", ", only)} have theirs ({TraceFolderLayout.StacksTrace})",
            });
        return manifest with
        {
            CpuSamplingMs = sampler ? 1.0 : null,
            CpuSamplingNote = sampler
                ? "EventPipe SampleProfiler: the runtime's fixed 1 ms interval (no per-session setting); the analyzer weights samples by the observed interval"
                : kernel?.CpuSamplePeriodNs is not null && kernel.Status == KernelSessionInfo.Recorded
                    ? "EventPipe SampleProfiler off: the kernel session samples the CPU (see \"kernel\")"
                    : "CPU sampling off in this profile",
            Dropped = dropped,
        };
    }

    public async ValueTask DisposeAsync()
    {
        if (Exceptions is not null) await Exceptions.DisposeAsync().ConfigureAwait(false);
        if (Stacks is not null) await Stacks.DisposeAsync().ConfigureAwait(false);
    }
}
