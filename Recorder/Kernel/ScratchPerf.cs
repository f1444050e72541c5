using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Recorder.Kernel;

/// <summary>
/// --tracing-cost's kernel session for the traced blocks: one perf like the recording's, into a scratch file nobody
/// reads, enabled through its control FIFO for each traced block and disabled after it. It only costs what the real
/// one costs. A new perf for each block meant about 180 perf starts and stops in the default benchmark, which made
/// its --tracing-cost recording take three times as long as without.
/// </summary>
public sealed class ScratchPerf(PerfAvailability perf, IProgress<string>? progress)
{
    /// <summary>Where the scratch file goes, kept after <see cref="EndAsync"/> (tests read it); null: the temp folder, deleted.</summary>
    public string? KeepAt { get; init; }

    private PerfSession? _session;
    private string? _path;

    /// <summary>perf recording until the returned block is disposed; null (said once in a line) when it cannot start.</summary>
    public async Task<IAsyncDisposable?> BlockAsync(int processId, CancellationToken cancel)
    {
        if (_session is { } running)
        {
            if (running.ExitCode is null && await running.ResumeAsync().ConfigureAwait(false)) return new Block(this);
            await EndAsync().ConfigureAwait(false); // perf ended or did not answer: a new one
        }
        var failures = new List<string>();
        for (var attempt = 0; attempt < Attempts; attempt++)
        {
            var path = KeepAt ?? Path.Combine(Path.GetTempPath(), $"esp-cost-{Environment.ProcessId}-{Guid.NewGuid():N}.perf.data");
            try
            {
                _session = await PerfSession.StartAsync(perf, processId, path, cancel, scratch: true).ConfigureAwait(false);
                _path = path;
                return new Block(this);
            }
            catch (Exception ex) when (ex is IOException or System.ComponentModel.Win32Exception or UnauthorizedAccessException)
            {
                failures.Add(ex.Message);
                if (KeepAt is null) FileCleanup.TryDelete(path);
                if (attempt < Attempts - 1) await Task.Delay(TimeSpan.FromMilliseconds(100), cancel).ConfigureAwait(false);
            }
        }
        progress?.Report($"tracing cost: the scratch kernel session did not start in {Attempts} tries: {string.Join("; ", failures.Distinct())}");
        return null;
    }

    /// <summary>
    /// Tries this many times: perf attaching to a process now and then exits with code 255 and no message (seen once
    /// in about 90 starts of the default benchmark's blocks, when a thread of the process exits while perf opens its
    /// events), and the next start works.
    /// </summary>
    private const int Attempts = 3;

    /// <summary>The blocks are over: perf stops and its file goes.</summary>
    public async Task EndAsync()
    {
        if (_session is not { } session) return;
        _session = null;
        await session.StopAsync(interrupt: true).ConfigureAwait(false);
        await session.DisposeAsync().ConfigureAwait(false);
        if (KeepAt is null) FileCleanup.TryDelete(_path!);
    }

    /// <summary>Between blocks perf's events are off; a perf that does not say so is ended (the next block starts another).</summary>
    private async Task PauseAsync()
    {
        if (_session is { } session && !await session.SuspendAsync().ConfigureAwait(false)) await EndAsync().ConfigureAwait(false);
    }

    private sealed class Block(ScratchPerf owner) : IAsyncDisposable
    {
        public async ValueTask DisposeAsync() => await owner.PauseAsync().ConfigureAwait(false);
    }
}
