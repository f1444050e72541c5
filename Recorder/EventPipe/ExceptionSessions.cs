using EtwSerializerProfiler.Common;
using Microsoft.Diagnostics.NETCore.Client;

namespace EtwSerializerProfiler.Recorder.EventPipe;

/// <summary>
/// The profile's stackless keywords (the runtime's exceptions) in sessions of their own, beside the main one. One keyword
/// mask per provider per session, and one stack flag per session: so a second session records every such event
/// without a stack (<see cref="TraceFolderLayout.ExceptionsTrace"/>), and short sessions with stacks sample where they
/// come from (<see cref="TraceFolderLayout.ExceptionStacksPrefix"/>): the first second, then <see cref="WindowMs"/>
/// every <see cref="PeriodMs"/>, and the first few at once when throws appear (<see cref="EarlyWindows"/>). A stack walk per throw made the seeds' exception scenario 4.5x slower traced
/// (docs/recorder.md, "Exceptions without stacks"). Without a folder the events go nowhere: the tracing-cost blocks'
/// scratch sessions, which only cost what the real ones cost.
/// </summary>
internal sealed class ExceptionSessions : IAsyncDisposable
{
    public const int FirstWindowMs = 1000;
    public const int WindowMs = 20;
    public const int PeriodMs = 2000;
    /// <summary>
    /// Windows opened early, as soon as throws appear in the stackless stream (more than <see cref="ThrowsBytes"/>
    /// since the last look, every <see cref="LookMs"/>): stacks of the first throws, however short the recording.
    /// </summary>
    public const int EarlyWindows = 3;
    public const int ThrowsBytes = 2048;
    public const int LookMs = 50;

    private readonly DiagnosticsClient _client;
    private readonly IReadOnlyList<EventPipeProvider> _providers;
    private readonly string? _folder;
    private readonly List<string> _warnings;
    private readonly EventPipeSession? _stackless;
    private readonly Task _stacklessCopy;
    private readonly double? _maxBytesPerSecond;
    private readonly long _startTicks = Environment.TickCount64;
    private long _lookBytes;
    private long _lookTicks = Environment.TickCount64;
    private int _stacklessStopped;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _sampler;
    private readonly bool _firstWindow;
    private int _earlyLeft;
    private long _stacklessBytes;
    private int _stopped;

    /// <summary>Starts the stackless session (before the runtime resumes, so every event is in it) and the sampler's first window.</summary>
    /// <param name="folder">The trace folder; null: a scratch copy for the tracing-cost blocks, which writes nothing and
    /// has no first long window (a block measures the steady state: a window every <see cref="PeriodMs"/>, at a random phase).</param>
    /// <param name="maxBytesPerSecond">The stackless stream's rate above which its session stops (<see cref="ProviderSpec.StacklessMaxMBPerSecond"/>); null: never.</param>
    /// <param name="continuous">False: sampling windows only, as the real sessions run once the stackless one has stopped.</param>
    public ExceptionSessions(DiagnosticsClient client, IReadOnlyList<EventPipeProvider> providers, string? folder, List<string> warnings,
        double? maxBytesPerSecond = null, bool continuous = true)
    {
        (_client, _providers, _folder, _warnings, _firstWindow, _maxBytesPerSecond) = (client, providers, folder, warnings, folder is not null, maxBytesPerSecond);
        // A scratch copy measures the steady state: its early windows were spent long before.
        _earlyLeft = folder is null ? 0 : EarlyWindows;
        if (continuous)
        {
            _stackless = client.StartEventPipeSession(new EventPipeSessionConfiguration(providers, EventPipeRecorder.CircularBufferMB, requestRundown: false, requestStackwalk: false));
            _stacklessCopy = SideSessionStream.CopyAsync(_stackless, folder is null ? null : Path.Combine(folder, TraceFolderLayout.ExceptionsTrace), _warnings, read => Interlocked.Add(ref _stacklessBytes, read));
        }
        else
        {
            _stacklessStopped = 1;
            _stacklessCopy = Task.CompletedTask;
        }
        _sampler = Task.Run(SampleAsync);
    }

    /// <summary>Null when the profile has no stackless keywords.</summary>
    public static ExceptionSessions? Start(DiagnosticsClient client, IReadOnlyList<EventPipeProvider> providers, string? folder, List<string> warnings,
        double? maxBytesPerSecond = null, bool continuous = true) =>
        providers.Count == 0 ? null : new ExceptionSessions(client, providers, folder, warnings, maxBytesPerSecond, continuous);

    /// <summary>
    /// The stackless session stopped because its stream ran faster than the profile allows (a throw rate at which
    /// its events cost about as much as the throws): from then on only the windows sample, and runs take their
    /// counts from the process (RunStop version 2).
    /// </summary>
    public bool StoppedForRate => StoppedAtSeconds is not null;

    /// <summary>When that happened, in seconds after the sessions started; null while it has not.</summary>
    public double? StoppedAtSeconds { get; private set; }

    private async Task SampleAsync()
    {
        // A scratch copy starts at a random point of the cycle: over many blocks, each sees the recording's duty cycle.
        if (!_firstWindow) await Delay(Random.Shared.Next(PeriodMs)).ConfigureAwait(false);
        for (var window = 1; !_stop.IsCancellationRequested; window++)
        {
            var length = window == 1 && _firstWindow ? FirstWindowMs : WindowMs;
            EventPipeSession session;
            // Bounded: on a reverse-connected port a request to a process that has ended waits for it forever.
            using var bound = CancellationTokenSource.CreateLinkedTokenSource(_stop.Token);
            bound.CancelAfter(IpcBound);
            try
            {
                session = await _client.StartEventPipeSessionAsync(new EventPipeSessionConfiguration(_providers, EventPipeRecorder.CircularBufferMB / 4, requestRundown: false, requestStackwalk: true), bound.Token).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is ServerErrorException or ServerNotAvailableException or IOException or TimeoutException or ObjectDisposedException or OperationCanceledException)
            {
                return; // the process has ended (or is ending): nothing left to sample
            }
            using (session)
            {
                var copy = SideSessionStream.CopyAsync(session, _folder is null ? null : Path.Combine(_folder, TraceFolderLayout.ExceptionStacksFile(window)), _warnings);
                await WindowAsync(length).ConfigureAwait(false);
                await StopBoundedAsync(session).ConfigureAwait(false);
                await EventPipeRecorder.WaitQuietly(copy, TimeSpan.FromSeconds(30)).ConfigureAwait(false);
            }
            await RefreshAsync().ConfigureAwait(false);
            await UntilNextWindow().ConfigureAwait(false);
        }
    }

    /// <summary>
    /// A window with stacks: <paramref name="length"/>, or <see cref="WindowMs"/> once the throws come so fast that
    /// the stackless session stopped (the first long window would otherwise walk every stack of a second of them).
    /// </summary>
    private async Task WindowAsync(int length)
    {
        for (var waited = 0; waited < length && !_stop.IsCancellationRequested; waited += LookMs)
        {
            await Delay(Math.Min(LookMs, length - waited)).ConfigureAwait(false);
            await CheckRateAsync().ConfigureAwait(false);
            if (StoppedForRate && waited + LookMs >= WindowMs) return;
        }
    }

    /// <summary>Stops the stackless session when its stream ran above the allowed rate since the last look.</summary>
    private async Task CheckRateAsync()
    {
        var (bytes, ticks) = (Interlocked.Read(ref _stacklessBytes), Environment.TickCount64);
        var (deltaBytes, deltaMs) = (bytes - _lookBytes, Math.Max(1, ticks - _lookTicks));
        (_lookBytes, _lookTicks) = (bytes, ticks);
        if (_maxBytesPerSecond is not { } max || _stackless is null || deltaBytes * 1000.0 / deltaMs <= max) return;
        if (Interlocked.Exchange(ref _stacklessStopped, 1) != 0) return;
        StoppedAtSeconds = (ticks - _startTicks) / 1000.0;
        await StopBoundedAsync(_stackless).ConfigureAwait(false);
        await RefreshAsync().ConfigureAwait(false);
        var said = FormattableString.Invariant($"{TraceFolderLayout.ExceptionsTrace}: stopped {(ticks - _startTicks) / 1000.0:F1} s in, at {deltaBytes * 1000.0 / deltaMs / 1048576:F1} MB/s ")
            + FormattableString.Invariant($"(above {max / 1048576:F1}): later throws are counted per run by the process (RunStop) and sampled in windows (docs/recorder.md#exceptions-without-stacks)");
        lock (_warnings) _warnings.Add(said);
    }

    /// <summary>The rest of the period, cut short while early windows are left and the stackless stream shows throws.</summary>
    private async Task UntilNextWindow()
    {
        var seen = Interlocked.Read(ref _stacklessBytes);
        for (var waited = 0; waited < PeriodMs - WindowMs && !_stop.IsCancellationRequested; waited += LookMs)
        {
            await Delay(Math.Min(LookMs, PeriodMs - WindowMs - waited)).ConfigureAwait(false);
            await CheckRateAsync().ConfigureAwait(false);
            var now = Interlocked.Read(ref _stacklessBytes);
            if (_earlyLeft > 0 && now - seen > ThrowsBytes)
            {
                _earlyLeft--;
                return;
            }
            seen = now;
        }
    }

    private async Task Delay(int ms)
    {
        try { await Task.Delay(ms, _stop.Token).ConfigureAwait(false); }
        catch (OperationCanceledException) { } // stopping: the wait ends early
    }

    /// <summary>
    /// How long a stop or start may wait for the runtime. Without a bound, a stop sent after the process ended waited
    /// forever on a reverse-connected port: a CI run's scenario test hung 10 minutes and more.
    /// </summary>
    internal static readonly TimeSpan IpcBound = TimeSpan.FromSeconds(5);

    /// <summary>Stops a side session within <see cref="IpcBound"/>, quietly (the process may have ended).</summary>
    internal static async Task StopBoundedAsync(EventPipeSession session)
    {
        using var bound = new CancellationTokenSource(IpcBound);
        try { await session.StopAsync(bound.Token).ConfigureAwait(false); }
        catch (Exception ex) when (ex is ServerNotAvailableException or IOException or ObjectDisposedException or ServerErrorException or TimeoutException or OperationCanceledException) { } // the process ended or the session stopped already
    }

    /// <summary>
    /// A session of the runtime's provider with no keyword, started and stopped at once. The runtime keeps firing the
    /// events of a keyword whose session stopped while another session still runs (measured: the exception scenario
    /// stayed 2x slower after the stackless session or a window stopped, until every session ended); starting a session
    /// makes it compute its keywords from the sessions that remain.
    /// </summary>
    private async Task RefreshAsync()
    {
        using var bound = CancellationTokenSource.CreateLinkedTokenSource(_stop.Token);
        bound.CancelAfter(IpcBound);
        try
        {
            var session = await _client.StartEventPipeSessionAsync(new EventPipeSessionConfiguration(
                [new EventPipeProvider(Profiles.KeywordNames.ClrProvider, System.Diagnostics.Tracing.EventLevel.Critical, 0)], 1, requestRundown: false, requestStackwalk: false), bound.Token).ConfigureAwait(false);
            using (session)
            {
                var copy = session.EventStream.CopyToAsync(Stream.Null);
                await StopBoundedAsync(session).ConfigureAwait(false);
                await EventPipeRecorder.WaitQuietly(copy, TimeSpan.FromSeconds(5)).ConfigureAwait(false);
            }
        }
        catch (Exception ex) when (ex is ServerErrorException or ServerNotAvailableException or IOException or TimeoutException or ObjectDisposedException or OperationCanceledException) { } // a runtime that has gone has no session to stop
    }

    /// <summary>Stops every session and waits for their files (idempotent: every exit path calls it).</summary>
    public async Task StopAsync()
    {
        if (Interlocked.Exchange(ref _stopped, 1) != 0) return;
        await _stop.CancelAsync().ConfigureAwait(false);
        await EventPipeRecorder.WaitQuietly(_sampler, TimeSpan.FromSeconds(30)).ConfigureAwait(false);
        // A stream that has ended (the process exited) or a session stopped for its rate needs no stop.
        if (!_stacklessCopy.IsCompleted && Interlocked.Exchange(ref _stacklessStopped, 1) == 0) await StopBoundedAsync(_stackless!).ConfigureAwait(false);
        await EventPipeRecorder.WaitQuietly(_stacklessCopy, TimeSpan.FromSeconds(60)).ConfigureAwait(false);
        _stackless?.Dispose();
    }

    public async ValueTask DisposeAsync()
    {
        await StopAsync().ConfigureAwait(false);
        _stop.Dispose();
    }
}
