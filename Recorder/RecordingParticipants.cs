using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.EventPipe;

namespace EtwSerializerProfiler.Recorder;

/// <summary>
/// The participants of one recording (<see cref="IRecordingParticipant"/>), their hooks called in the order given.
/// A participant whose start throws fails the recording: the ones started before it end (interrupted) first. The
/// ends run in reverse order, once each; disposal ends those that are <see cref="IAsyncDisposable"/>, in reverse.
/// </summary>
public sealed class RecordingParticipants : IAsyncDisposable
{
    private readonly List<IRecordingParticipant> _participants = [];
    private readonly List<IRecordingParticipant> _started = [];
    private int _processId;

    /// <summary>A traced block with nothing to stop.</summary>
    internal static IAsyncDisposable NoBlock { get; } = new Block([]);

    /// <summary>Joins the recording (nothing when null): its hooks are called after those of the ones added before it.</summary>
    public T? Add<T>(T? participant) where T : class, IRecordingParticipant
    {
        if (participant is not null) _participants.Add(participant);
        return participant;
    }

    public IReadOnlyList<IRecordingParticipant> All => _participants;

    public bool SamplesCpu => _participants.Any(p => p.SamplesCpu);

    public bool AnyEnded => _started.Any(p => p.Ended);

    public ChildCommand WithArguments(ChildCommand command) =>
        _participants.Any(p => p.BenchmarkArguments.Count > 0) ? command with { Arguments = [.. command.Arguments, .. _participants.SelectMany(p => p.BenchmarkArguments)] } : command;

    public async Task ChildLaunchingAsync(CancellationToken cancel)
    {
        foreach (var p in _participants) await p.ChildLaunchingAsync(cancel).ConfigureAwait(false);
    }

    public async Task ChildStartingAsync(int processId, CancellationToken cancel)
    {
        _processId = processId;
        foreach (var p in _participants)
        {
            try { await p.ChildStartingAsync(processId, cancel).ConfigureAwait(false); }
            catch
            {
                await ChildExitedAsync(interrupted: true).ConfigureAwait(false);
                throw;
            }
            _started.Add(p);
        }
    }

    public string? NoticeDeath() => _started.Select(p => p.NoticeDeath()).FirstOrDefault(line => line is not null);

    public async Task PauseAsync()
    {
        foreach (var p in _started) await p.PauseAsync().ConfigureAwait(false);
    }

    /// <summary>One traced block of every participant started, or null (the others' stopped again) when one cannot start.</summary>
    public async Task<IAsyncDisposable?> StartScratchAsync(CancellationToken cancel)
    {
        var blocks = new List<IAsyncDisposable>();
        foreach (var p in _started)
        {
            if (await p.StartScratchAsync(_processId, cancel).ConfigureAwait(false) is not { } block)
            {
                await new Block(blocks).DisposeAsync().ConfigureAwait(false);
                return null;
            }
            blocks.Add(block);
        }
        return new Block(blocks);
    }

    public async Task EndScratchAsync()
    {
        foreach (var p in _participants) await p.EndScratchAsync().ConfigureAwait(false);
    }

    public async Task ChildExitedAsync(bool interrupted)
    {
        for (var i = _started.Count - 1; i >= 0; i--)
        {
            var p = _started[i];
            _started.RemoveAt(i);
            await p.ChildExitedAsync(interrupted).ConfigureAwait(false);
        }
    }

    public async Task<TraceManifest> ManifestAsync(TraceManifest manifest)
    {
        foreach (var p in _participants) manifest = await p.ManifestAsync(manifest).ConfigureAwait(false);
        return manifest;
    }

    public async ValueTask DisposeAsync()
    {
        for (var i = _participants.Count - 1; i >= 0; i--)
            if (_participants[i] is IAsyncDisposable d) await d.DisposeAsync().ConfigureAwait(false);
    }

    private sealed class Block(List<IAsyncDisposable> blocks) : IAsyncDisposable
    {
        public async ValueTask DisposeAsync() => await Task.WhenAll(blocks.Select(b => b.DisposeAsync().AsTask())).ConfigureAwait(false);
    }
}
