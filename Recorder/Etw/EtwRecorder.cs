using System.ComponentModel;
using System.Diagnostics;
using System.Runtime.Versioning;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.EventPipe;
using Microsoft.Diagnostics.Tracing.Session;

namespace EtwSerializerProfiler.Recorder.Etw;

/// <summary>
/// Records a child process with ETW: the session (or, before Windows 8, the kernel logger plus a user session) is
/// started first, the child runs normally (ETW needs no diagnostic port), the CLR rundown provider is enabled when it
/// ends, and the session files are merged into trace.etl. Sessions are stopped on every path: normal end, Ctrl+C,
/// crashed child, exception; one that survives a killed recorder is found by `esp cleanup` through its name prefix.
/// Compiled, not run on this project's Linux CI: see docs/windows.md.
/// </summary>
[SupportedOSPlatform("windows")]
public sealed class EtwRecorder
{
    public const string SessionFileName = "trace.session.etl";
    public const string KernelFileName = "trace.kernel.etl";
    private const int BufferSizeMB = 256;
    private static readonly TimeSpan RundownQuietPeriod = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan RundownLimit = TimeSpan.FromSeconds(15);

    /// <summary>Fails before any folder is created: without elevation every ETW call below would fail one by one.</summary>
    public static void EnsureCanRecord()
    {
        if (TraceEventSession.IsElevated() != true)
            throw new UsageException("--backend etw needs an elevated (administrator) prompt: only administrators can start ETW sessions");
    }

    public async Task<RecordingOutcome> RecordAsync(ChildCommand command, EtwSessionPlan plan, TraceFolder folder, IProgress<string>? progress, CancellationToken cancel)
    {
        var clock = Stopwatch.StartNew();
        var warnings = new List<string>();
        var sessionFile = Path.Combine(folder.Path, SessionFileName);
        var kernelFile = Path.Combine(folder.Path, KernelFileName);
        var parts = new List<string>();
        TraceEventSession? kernel = null;
        TraceEventSession? session = null;
        Process? child = null;
        var status = RecordingStatus.Complete;
        try
        {
            if (plan.HasKernel && plan.Layout == EtwSessionLayout.SplitKernelSession)
            {
                kernel = new TraceEventSession(plan.KernelSessionName, kernelFile) { BufferSizeMB = BufferSizeMB };
                EnableKernel(kernel, plan);
                parts.Add(kernelFile);
            }
            session = new TraceEventSession(plan.SessionName, sessionFile) { BufferSizeMB = BufferSizeMB };
            // EnableKernelProvider must be the session's first enable call, before any user provider.
            if (plan.HasKernel && plan.Layout == EtwSessionLayout.Combined) EnableKernel(session, plan);
            foreach (var provider in plan.Providers)
                session.EnableProvider(provider.Guid, provider.TraceLevel, provider.Keywords, provider.ToProviderOptions());
            parts.Add(sessionFile);

            child = StartChild(command);
            progress?.Report($"recording process {child.Id} with profile '{plan.ProfileName}' in ETW session {plan.SessionName} -> {folder.Etl}");
            try
            {
                await child.WaitForExitAsync(cancel).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                // The console's Ctrl+C reached the child too; give it a moment to save partial results.
                status = RecordingStatus.Interrupted;
                progress?.Report("Ctrl+C: rundown, then stopping the ETW sessions and the child...");
                await RundownAsync(session, plan, sessionFile).ConfigureAwait(false);
                if (!child.WaitForExit(5000)) child.Kill(entireProcessTree: true);
            }

            var exitCode = child.HasExited ? child.ExitCode : -1;
            // On Windows a crash ends with an NTSTATUS (0xC...) exit code, negative as an int.
            if (status == RecordingStatus.Complete && exitCode != 0)
                status = exitCode < 0 ? RecordingStatus.ChildCrashed : RecordingStatus.ChildFailed;
            if (status != RecordingStatus.Interrupted) await RundownAsync(session, plan, sessionFile).ConfigureAwait(false);
            var lost = (session.EventsLost) + (kernel?.EventsLost ?? 0);
            if (lost > 0) warnings.Add($"{lost:N0} ETW events were lost (buffers full): use a profile with fewer stacks or a longer sampling interval");

            StopQuietly(session, warnings);
            StopQuietly(kernel, warnings);
            progress?.Report($"merging {string.Join(" + ", parts.Select(Path.GetFileName))} into {TraceFolder.EtlFileName}...");
            TraceEventSession.Merge(parts.ToArray(), folder.Etl);
            foreach (var part in parts) TryDelete(part);
            return new RecordingOutcome
            {
                Status = status,
                ChildExitCode = exitCode,
                ChildProcessId = child.Id,
                TraceBytes = new FileInfo(folder.Etl).Length,
                Duration = clock.Elapsed,
                Warnings = warnings,
            };
        }
        catch (Exception ex) when (ex is not UsageException and not OperationCanceledException)
        {
            throw new UsageException($"ETW recording failed: {ex.Message}");
        }
        finally
        {
            StopQuietly(session, warnings);
            StopQuietly(kernel, warnings);
            if (child is { HasExited: false }) child.Kill(entireProcessTree: true);
            child?.Dispose();
            // Parts of a run that happened are the only copy of the data when merging failed: keep them.
            if (!File.Exists(folder.Etl) && child is null) foreach (var part in parts) TryDelete(part);
        }
    }

    private static void EnableKernel(TraceEventSession session, EtwSessionPlan plan)
    {
        // The interval is machine-wide and is applied by EnableKernelProvider, so set it first.
        if (plan.CpuSampleIntervalMs is { } ms) session.CpuSampleIntervalMSec = (float)ms;
        session.EnableKernelProvider(plan.KernelKeywords, plan.KernelStackKeywords);
    }

    /// <summary>
    /// Asks the CLR for its rundown (module and method names of code that never fired a load event while tracing,
    /// e.g. a child interrupted mid-run) and waits until the file stops growing, as PerfView does.
    /// </summary>
    private static async Task RundownAsync(TraceEventSession session, EtwSessionPlan plan, string sessionFile)
    {
        session.EnableProvider(plan.Rundown.Guid, plan.Rundown.TraceLevel, plan.Rundown.Keywords);
        var limit = Stopwatch.StartNew();
        var lastSize = -1L;
        var stableSince = Stopwatch.StartNew();
        while (limit.Elapsed < RundownLimit)
        {
            await Task.Delay(200).ConfigureAwait(false);
            session.Flush();
            var size = File.Exists(sessionFile) ? new FileInfo(sessionFile).Length : 0;
            if (size != lastSize) { lastSize = size; stableSince.Restart(); }
            else if (stableSince.Elapsed >= RundownQuietPeriod) return;
        }
    }

    private static void StopQuietly(TraceEventSession? session, List<string> warnings)
    {
        if (session is null) return;
        try
        {
            if (session.IsActive) session.Stop();
            session.Dispose();
        }
        catch (Exception ex) when (ex is InvalidOperationException or System.Runtime.InteropServices.COMException or UnauthorizedAccessException)
        {
            warnings.Add($"stopping ETW session {session.SessionName}: {ex.Message} (run `esp cleanup`)");
        }
    }

    private static Process StartChild(ChildCommand command)
    {
        var psi = new ProcessStartInfo(command.FileName) { UseShellExecute = false };
        foreach (var a in command.Arguments) psi.ArgumentList.Add(a);
        foreach (var (k, v) in command.Environment) psi.Environment[k] = v;
        try
        {
            return Process.Start(psi) ?? throw new UsageException($"could not start '{command.Display}'");
        }
        catch (Win32Exception ex)
        {
            throw new UsageException($"could not start '{command.Display}': {ex.Message}");
        }
    }

    private static void TryDelete(string path)
    {
        try { File.Delete(path); } catch (IOException) { } catch (UnauthorizedAccessException) { }
    }
}
