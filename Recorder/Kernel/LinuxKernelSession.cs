using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Profiles;

namespace EtwSerializerProfiler.Recorder.Kernel;

/// <summary>
/// The perf kernel session of one recording. Never fails the recording: where perf is missing, refused or breaks,
/// the EventPipe trace is still recorded and <see cref="Info"/> says why there is no kernel data. A participant of the
/// recording: perf starts on the child's PID while its runtime waits at the diagnostic port and stops after it exited.
/// </summary>
public sealed class LinuxKernelSession(TraceProfile profile, PerfAvailability perf, TraceFolder folder, IProgress<string>? progress) : IRecordingParticipant
{
    private PerfSession? _session;
    private string? _startError;
    // /proc/stat steal when perf started, and when the recording's session stopped or paused (HostSteal).
    private double? _stealAtStart, _stealAtEnd;
    private KernelSessionDeath? _died;

    public KernelSessionInfo Info { get; private set; } = KernelSessionInfo.Off("not started");

    public bool SamplesCpu => perf.Accepted.Any(e => e.Name == PerfRecording.CpuClock);

    /// <summary>The session for a recording, or null with the reason it will not record (shown and kept in the manifest).</summary>
    public static (LinuxKernelSession? Session, KernelSessionInfo? Why) For(KernelMode mode, TraceProfile profile, TraceFolder folder, IProgress<string>? progress)
    {
        if (mode == KernelMode.Off) return (null, KernelSessionInfo.Off("--kernel off"));
        var wanted = PerfEventPlan.For(profile);
        if (wanted.Count == 0) return (null, KernelSessionInfo.Off($"profile '{profile.Name}' has no kernel events"));
        var perf = PerfProbe.Check(wanted);
        if (!perf.Usable)
        {
            var reason = string.Join("; ", perf.Missing);
            if (mode == KernelMode.Perf && perf.PerfPath is null) throw new Common.UsageException($"--kernel perf: {reason}");
            return (null, KernelSessionInfo.Off(reason) with { Missing = [.. perf.Missing] });
        }
        return (new LinuxKernelSession(profile, perf, folder, progress), null);
    }

    public async Task ChildStartingAsync(int processId, CancellationToken cancel)
    {
        try
        {
            // A disk with little room (the recorder warned): small bursts, so the trace is cut before perf's writes fail.
            var tight = DiskSpaceCheck.FreeBytes(folder.Path) is { } free && free < DiskSpaceCheck.TightDiskBytes;
            _session = await PerfSession.StartAsync(perf, processId, folder.KernelData, cancel, tight ? PerfSession.TightDiskMmapPages : PerfSession.MmapPages).ConfigureAwait(false);
            _stealAtStart = HostSteal.ReadMs();
            progress?.Report($"kernel session: perf on process {processId} ({string.Join(", ", perf.Accepted.Select(e => e.Name))})");
        }
        catch (Exception ex) when (ex is IOException or System.ComponentModel.Win32Exception or UnauthorizedAccessException)
        {
            _startError = ex.Message;
            progress?.Report($"kernel session not recorded: {ex.Message}");
        }
    }

    public bool Ended => _session?.ExitCode is not null;

    public string? NoticeDeath()
    {
        if (_died is not null || _session?.ExitCode is not { } code) return null;
        // perf's own last line says why it stopped, when it stopped by itself (a signal leaves its last chatter, not a reason).
        var perfSaid = code > 128 ? null : _session.Log.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).LastOrDefault();
        _died = new KernelSessionDeath
        {
            Reason = $"perf (pid {_session.ProcessId}) {UnixExitStatus.InWords(code)}{(perfSaid is null ? "" : $" ({perfSaid})")}",
            AtUtc = _session.ExitedAtUtc ?? DateTime.UtcNow,
        };
        return $"kernel session: {_died.Reason} while the recorded process ran: its data ends here, EventPipe records on";
    }

    public async Task PauseAsync()
    {
        _stealAtEnd ??= HostSteal.ReadMs();
        if (_session is not null) await _session.DisableAsync().ConfigureAwait(false);
    }

    private ScratchPerf? _scratch;

    public Task<IAsyncDisposable?> StartScratchAsync(int processId, CancellationToken cancel) =>
        (_scratch ??= new ScratchPerf(perf, progress)).BlockAsync(processId, cancel);

    public Task EndScratchAsync() => _scratch?.EndAsync() ?? Task.CompletedTask;

    /// <summary>The manifest's "kernel"; perf's death in the manifest's own time (seconds after its startTimeUtc).</summary>
    public Task<TraceManifest> ManifestAsync(TraceManifest manifest) => Task.FromResult(manifest with
    {
        Kernel = Info.Died is { } died ? Info with { Died = died with { AtSeconds = Math.Max(0, (died.AtUtc - manifest.StartTimeUtc).TotalSeconds) } } : Info,
    });

    public async Task ChildExitedAsync(bool interrupted)
    {
        await EndScratchAsync().ConfigureAwait(false);
        if (_session is null)
        {
            Info = KernelSessionInfo.Off(_startError ?? "perf did not start") with { Missing = [.. perf.Missing] };
            return;
        }
        await using var session = _session;
        _stealAtEnd ??= HostSteal.ReadMs();
        var result = await session.StopAsync(interrupted).ConfigureAwait(false);
        var info = new KernelSessionInfo
        {
            Died = _died,
            Status = KernelSessionInfo.Recorded,
            Tool = $"perf {perf.Version}",
            CommandLine = session.CommandLine,
            Clock = Common.PerfRecording.Clock,
            CpuSamplePeriodNs = perf.Accepted.Any(e => e.Name == PerfRecording.CpuClock) ? PerfEventPlan.PeriodNs(profile) : null,
            Events = [.. perf.Accepted.Select(e => e.Spec)],
            Records = [.. perf.Accepted.Select(e => e.Describes)],
            Missing = [.. perf.Missing],
            DataFile = TraceFolderLayout.KernelData,
            DataBytes = result.DataBytes,
            LostChunks = result.LostChunks,
            HostStealMs = _stealAtEnd - _stealAtStart is >= 0 and var steal ? steal : null,
            PerfCpuSeconds = session.CpuSeconds is { } cpu ? Math.Round(cpu, 3) : null,
        };
        if (result.DataBytes == 0)
        {
            Info = KernelSessionInfo.Off($"perf wrote no data (exit code {result.ExitCode})") with { Missing = info.Missing };
            return;
        }
        if (_died is not null)
        {
            // perf never finished its file (no header, no data size): perf script refuses it as it is. The analyzer
            // repairs and converts it (Analyzer/Kernel/CutPerfData, LeftoverPerfData), as after a killed recorder.
            Info = info with { Missing = [.. info.Missing, $"{TraceFolderLayout.KernelScript}: perf died before it finished {TraceFolderLayout.KernelData}; esp analyze repairs and converts it"] };
            return;
        }
        progress?.Report("kernel session: converting perf data (perf script)...");
        try
        {
            var bytes = await PerfScriptConversion.ConvertAsync(perf.PerfPath!, folder.KernelData, folder.KernelScript, CancellationToken.None).ConfigureAwait(false);
            Info = info with { ScriptFile = TraceFolderLayout.KernelScript, ScriptBytes = bytes, UnnamedNativeModules = Unnamed(perf.PerfPath!, folder, progress) };
        }
        catch (IOException ex) when (EventPipe.TraceStreamWriter.IsDiskFull(ex))
        {
            Info = await ConvertOnFullDiskAsync(info, ex).ConfigureAwait(false);
        }
        catch (IOException ex)
        {
            // perf's own last words say why its file is unreadable (a perf that could not finish it).
            var perfSaid = result.Log.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).LastOrDefault();
            Info = info with { Status = KernelSessionInfo.NotRecorded, Reason = $"perf data recorded but not converted: {ex.Message} (perf exit code {result.ExitCode}{(perfSaid is null ? "" : ": " + perfSaid)})" };
        }
    }

    /// <summary>
    /// The folder's disk is full (docs/recorder.md#the-disk-fills-up): the text is made in the temp folder and takes
    /// the place of kernel.perf.data, which only --symbols needs; the analysis then still has its on-CPU figures.
    /// </summary>
    private async Task<KernelSessionInfo> ConvertOnFullDiskAsync(KernelSessionInfo info, IOException full)
    {
        var temp = EspTempFiles.NewPath("-" + TraceFolderLayout.KernelScript);
        ExitJanitor.DeleteOnExit(temp);
        try
        {
            var bytes = await PerfScriptConversion.ConvertAsync(perf.PerfPath!, folder.KernelData, temp, CancellationToken.None).ConfigureAwait(false);
            File.Delete(folder.KernelData);
            File.Copy(temp, folder.KernelScript, overwrite: true);
            progress?.Report($"kernel session: the disk is full, so its text replaces {TraceFolderLayout.KernelData}");
            return info with
            {
                ScriptFile = TraceFolderLayout.KernelScript, ScriptBytes = bytes, DataFile = null,
                Missing = [.. info.Missing, $"{TraceFolderLayout.KernelData}: deleted to make room for its text on a full disk ({full.Message}); --symbols needs it"],
            };
        }
        catch (IOException ex)
        {
            FileCleanup.TryDelete(folder.KernelScript);
            return info with { Status = KernelSessionInfo.NotRecorded, Reason = $"perf data recorded but not converted: {ex.Message}" };
        }
        finally
        {
            FileCleanup.TryDelete(temp);
        }
    }

    /// <summary>The modules perf could not name, said once here (and kept in the manifest) with what names them.</summary>
    private static List<UnnamedNativeModule> Unnamed(string perf, TraceFolder folder, IProgress<string>? progress)
    {
        List<UnnamedNativeModule> modules;
        try { modules = UnnamedNativeModules.Find(perf, folder.KernelData, folder.KernelScript); }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or System.ComponentModel.Win32Exception) { return []; }
        var samples = modules.Sum(m => m.UnnamedLeafSamples);
        if (samples > 0)
            progress?.Report(NoSymbolsLine(modules.Select(m => Path.GetFileName(m.Path)).ToList(), samples));
        return modules;
    }

    /// <summary>One terminal line (at most 120 columns): as many module names as fit, then how many more.</summary>
    public static string NoSymbolsLine(IReadOnlyList<string> names, long samples)
    {
        string Line(int shown) => $"kernel session: no symbols for {string.Join(", ", names.Take(shown))}"
            + (shown < names.Count ? $" +{names.Count - shown}" : "") + $" ({samples:N0} samples): esp analyze --symbols DIR";
        var n = names.Count;
        while (n > 1 && Line(n).Length > 120) n--;
        return Line(n);
    }
}
