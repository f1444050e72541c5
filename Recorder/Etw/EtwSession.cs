using System.Diagnostics;
using System.Runtime.Versioning;
using EtwSerializerProfiler.Common;
using Microsoft.Diagnostics.Tracing.Session;

namespace EtwSerializerProfiler.Recorder.Etw;

/// <summary>
/// The ETW session of one recording, a participant: it starts before the child is launched, so it sees the process
/// from its start; it asks one process for the CLR rundown (<see cref="RundownAsync"/>, while the exit handshake holds
/// the benchmark); once the child exited it stops and is merged into trace.etl; it writes the manifest's ETW fields
/// (<see cref="EtwManifest"/>). Disposal stops it on every path. Compiled, not run on this project's Linux CI.
/// </summary>
[SupportedOSPlatform("windows")]
internal sealed class EtwSession(EtwSessionPlan plan, TraceFolder folder, List<string> warnings, IProgress<string>? progress) : IRecordingParticipant, IAsyncDisposable
{
    public const string SessionFileName = "trace.session.etl";
    private const int BufferSizeMB = 256;
    private static readonly TimeSpan RundownQuietPeriod = TimeSpan.FromSeconds(1);
    internal static readonly TimeSpan RundownLimit = TimeSpan.FromSeconds(15);
    private TraceEventSession? _session;

    public string SessionFile { get; } = Path.Combine(folder.Path, SessionFileName);

    public Task ChildLaunchingAsync(CancellationToken cancel)
    {
        _session = new TraceEventSession(plan.SessionName, SessionFile) { BufferSizeMB = BufferSizeMB };
        // EnableKernelProvider must be the session's first enable call, before any user provider.
        if (plan.HasKernel) EnableKernel(_session, plan);
        foreach (var provider in plan.Providers)
            _session.EnableProvider(provider.Guid, provider.TraceLevel, provider.Keywords, provider.ToProviderOptions());
        return Task.CompletedTask;
    }

    /// <summary>
    /// Asks one process's CLR for its rundown (module and method names of code that never fired a load event while
    /// tracing: precompiled code above all) and waits until the file stops growing, as PerfView does: the runtime
    /// writes the rundown on its own callback thread after the enable call has returned.
    /// </summary>
    public async Task RundownAsync(int processId)
    {
        var session = _session ?? throw new InvalidOperationException("the ETW session has not started");
        session.EnableProvider(plan.Rundown.Guid, plan.Rundown.TraceLevel, plan.Rundown.Keywords, plan.RundownOptions(processId));
        var limit = Stopwatch.StartNew();
        var lastSize = -1L;
        var stableSince = Stopwatch.StartNew();
        while (limit.Elapsed < RundownLimit)
        {
            await Task.Delay(200).ConfigureAwait(false);
            session.Flush();
            var size = File.Exists(SessionFile) ? new FileInfo(SessionFile).Length : 0;
            if (size != lastSize) { lastSize = size; stableSince.Restart(); }
            else if (stableSince.Elapsed >= RundownQuietPeriod) return;
        }
    }

    /// <summary>The child has exited: the session stops and its file is merged into trace.etl (a failed merge fails the recording).</summary>
    public Task ChildExitedAsync(bool interrupted)
    {
        if (_session is null) return Task.CompletedTask;
        if (_session.EventsLost > 0) warnings.Add($"{_session.EventsLost:N0} ETW events were lost (buffers full): use a profile with fewer stacks or a longer sampling interval");
        StopQuietly();
        progress?.Report($"merging {SessionFileName} into {TraceFolderLayout.Etl}...");
        // Merge adds the kernel's image and symbol information (KernelTraceControl.dll) that WPA and TraceLog need.
        TraceEventSession.Merge([SessionFile], folder.Etl);
        FileCleanup.TryDelete(SessionFile);
        return Task.CompletedTask;
    }

    public Task<TraceManifest> ManifestAsync(TraceManifest manifest) => Task.FromResult(EtwManifest.Apply(manifest, plan));

    public ValueTask DisposeAsync()
    {
        StopQuietly();
        return ValueTask.CompletedTask;
    }

    private static void EnableKernel(TraceEventSession session, EtwSessionPlan plan)
    {
        // The interval is machine-wide and is applied by EnableKernelProvider, so set it first.
        if (plan.CpuSampleIntervalMs is { } ms) session.CpuSampleIntervalMSec = (float)ms;
        session.EnableKernelProvider(plan.KernelKeywords, plan.KernelStackKeywords);
    }

    /// <summary>Stops the session quietly: a failure is a warning, and the next call (disposal) tries again.</summary>
    private void StopQuietly()
    {
        if (_session is not { } session) return;
        try
        {
            if (session.IsActive) session.Stop();
            session.Dispose();
            _session = null;
        }
        catch (Exception ex) when (ex is InvalidOperationException or System.Runtime.InteropServices.COMException or UnauthorizedAccessException)
        {
            warnings.Add($"stopping ETW session {session.SessionName}: {ex.Message} (run `esp cleanup`)");
        }
    }
}
