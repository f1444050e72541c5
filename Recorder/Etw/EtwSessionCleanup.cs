using System.Runtime.Versioning;
using Microsoft.Diagnostics.Tracing.Session;

namespace EtwSerializerProfiler.Recorder.Etw;

/// <summary>Stops ETW sessions this tool left behind (a killed recorder cannot stop its own). Compiled, not run here.</summary>
[SupportedOSPlatform("windows")]
public static class EtwSessionCleanup
{
    public sealed record Result(IReadOnlyList<string> Stopped, IReadOnlyList<string> Failed, bool KernelLoggerRunning);

    public static Result StopOurSessions()
    {
        var active = TraceEventSession.GetActiveSessionNames();
        var stopped = new List<string>();
        var failed = new List<string>();
        foreach (var name in EtwSessionNames.Ours(active))
        {
            try
            {
                using var session = TraceEventSession.GetActiveSession(name);
                if (session is null) continue; // ended between the listing and now
                session.Stop();
                stopped.Add(name);
            }
            catch (Exception ex) when (ex is UnauthorizedAccessException or InvalidOperationException or System.Runtime.InteropServices.COMException)
            {
                failed.Add($"{name}: {ex.Message}");
            }
        }
        return new Result(stopped, failed, active.Contains(EtwSessionNames.NtKernelLogger));
    }
}
