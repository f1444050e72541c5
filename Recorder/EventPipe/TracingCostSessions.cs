using Microsoft.Diagnostics.NETCore.Client;

namespace EtwSerializerProfiler.Recorder.EventPipe;

/// <summary>
/// Tracing off and on for the benchmark's tracing-cost blocks. The first "off" ends the recording's own sessions: the
/// EventPipe session is stopped (its rundown names the code) and the kernel session stops recording. Each "on" starts
/// scratch sessions like them, whose data is thrown away: they only cost what the real ones cost (the kernel one is
/// one perf, paused between blocks: <see cref="Kernel.ScratchPerf"/>). So do the
/// exception sessions (<see cref="ExceptionSessions"/>): the real ones stop with the main one, scratch ones run in each
/// traced block, their stack sampler's duty cycle included; and the stack keywords' session (<see cref="StackSession"/>),
/// beside a scratch main session without stacks as the real one.
/// </summary>
internal sealed class TracingCostSessions(DiagnosticsClient client, EventPipeSession main, Task mainCopy, RealSessions real,
    RecordingParticipants participants, IProgress<string>? progress, List<string> warnings) : IAsyncDisposable
{
    private StackSession? _scratchStacks;
    private bool _mainStopped;
    private ExceptionSessions? _scratchExceptions;
    private EventPipeSession? _scratch;
    private Task? _scratchCopy;
    private IAsyncDisposable? _scratchKernel;

    public async Task<string?> SetAsync(bool traced)
    {
        try
        {
            if (!_mainStopped)
            {
                _mainStopped = true;
                lock (warnings) EventPipeRecorder.TryStop(main, warnings);
                if (!await EventPipeRecorder.WaitQuietly(mainCopy, TimeSpan.FromSeconds(60)).ConfigureAwait(false))
                    return "the trace did not end within 60 s of stopping its session";
                // The real side sessions stop with the kernel session's recording (EventPipeSideSessions).
                await participants.PauseAsync().ConfigureAwait(false);
                progress?.Report("tracing cost: the trace ends here; each case runs again with tracing off and on");
            }
            await StopScratchAsync().ConfigureAwait(false);
            if (!traced) return null;
            // Without rundown: a scratch session's stop then costs nothing the blocks would see.
            _scratch = client.StartEventPipeSession(new EventPipeSessionConfiguration(real.Providers, EventPipeRecorder.CircularBufferMB, requestRundown: false, requestStackwalk: !real.MainStackless));
            _scratchCopy = _scratch.EventStream.CopyToAsync(Stream.Null, CancellationToken.None);
            // As the real ones run now: windows only once the stackless session stopped for its rate.
            if (real.Stacks is not null) _scratchStacks = StackSession.Start(client, real.Stacks.Providers, folder: null, warnings);
            if (real.Stackless is { } stackless) _scratchExceptions = ExceptionSessions.Start(client, stackless, folder: null, warnings, continuous: real.Exceptions?.StoppedForRate != true);
            _scratchKernel = await participants.StartScratchAsync(CancellationToken.None).ConfigureAwait(false);
            if (_scratchKernel is null) return "the scratch kernel session did not start";
            return null;
        }
        catch (Exception ex) when (ex is ServerErrorException or ServerNotAvailableException or IOException or TimeoutException or ObjectDisposedException)
        {
            return $"{ex.GetType().Name}: {ex.Message}";
        }
    }

    /// <summary>
    /// Side by side: each EventPipe session's stop waits on the runtime. The switch to an untraced block took 0.21-0.39 s
    /// one after the other and 0.26-0.30 s side by side (MessagePack and System.Text.Json, N=10,000): the runtime answers
    /// the stops about 0.1 s apart either way.
    /// </summary>
    public async Task StopScratchAsync()
    {
        var stops = new List<Task>();
        if (_scratchStacks is { } scratchStacks)
        {
            _scratchStacks = null;
            stops.Add(scratchStacks.DisposeAsync().AsTask());
        }
        if (_scratchExceptions is { } scratchExceptions)
        {
            _scratchExceptions = null;
            stops.Add(scratchExceptions.DisposeAsync().AsTask());
        }
        if (_scratch is { } scratch)
        {
            _scratch = null;
            var copy = _scratchCopy!;
            stops.Add(Task.Run(async () =>
            {
                var said = new List<string>();
                EventPipeRecorder.TryStop(scratch, said);
                lock (warnings) warnings.AddRange(said);
                await EventPipeRecorder.WaitQuietly(copy, TimeSpan.FromSeconds(30)).ConfigureAwait(false);
                scratch.Dispose();
            }));
        }
        if (_scratchKernel is { } kernel)
        {
            _scratchKernel = null;
            stops.Add(kernel.DisposeAsync().AsTask());
        }
        await Task.WhenAll(stops).ConfigureAwait(false);
    }

    /// <summary>The blocks are over (or the benchmark went away): the scratch sessions end.</summary>
    public async Task EndAsync()
    {
        await StopScratchAsync().ConfigureAwait(false);
        await participants.EndScratchAsync().ConfigureAwait(false);
    }

    public async ValueTask DisposeAsync() => await EndAsync().ConfigureAwait(false);
}

/// <summary>The recording's own EventPipe sessions, which each traced block's scratch sessions copy.</summary>
internal sealed record RealSessions(IReadOnlyList<EventPipeProvider> Providers, bool MainStackless, ExceptionSessions? Exceptions,
    IReadOnlyList<EventPipeProvider>? Stackless, StackSession? Stacks);
