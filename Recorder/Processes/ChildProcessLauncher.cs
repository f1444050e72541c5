using System.ComponentModel;
using System.Diagnostics;
using System.Runtime.ExceptionServices;

namespace EtwSerializerProfiler.Recorder.Processes;

/// <summary>
/// Starts a process that cannot outlive esp: if esp is killed (SIGKILL included, which runs no cleanup code), the
/// kernel kills the child. On Linux that is the parent-death signal (PR_SET_PDEATHSIG), set in the child by
/// <c>setpriv --pdeathsig KILL -- PROGRAM ARGS</c> (util-linux), which then execs the program: the process id stays
/// the program's own (the recorder connects to its diagnostic port and writes the id in the manifest), and its exit
/// code, signals and Ctrl+C are the program's.
/// <para>
/// The signal fires when the <em>thread</em> that forked the child ends, not the process, and .NET forks on the
/// calling thread; a thread-pool thread can retire while the child runs, which would kill it. So every child is
/// started from a dedicated thread that lives until the <see cref="LaunchedProcess"/> is disposed.
/// </para>
/// Without setpriv, or off Linux, the child is started the ordinary way and <see cref="LaunchedProcess.DiesWithEsp"/>
/// is false: it outlives a killed esp (docs/recorder.md).
/// </summary>
public static class ChildProcessLauncher
{
    private static readonly Lazy<string?> s_setpriv = new(FindSetpriv);

    /// <summary>Whether children started here die with esp on this machine.</summary>
    public static bool ParentDeathSignal => s_setpriv.Value is not null;

    /// <summary>
    /// Starts <paramref name="start"/> (its <c>ArgumentList</c>, not <c>Arguments</c>). A program that cannot be
    /// started throws the <see cref="Win32Exception"/> Process.Start would have thrown.
    /// </summary>
    public static LaunchedProcess Start(ProcessStartInfo start)
    {
        ArgumentNullException.ThrowIfNull(start);
        if (!string.IsNullOrEmpty(start.Arguments)) throw new ArgumentException("use ArgumentList: arguments are passed on to setpriv one by one", nameof(start));
        var setpriv = s_setpriv.Value;
        if (setpriv is not null)
        {
            // setpriv would report a missing program only as its own exit code 127: find it first, as Process.Start does.
            var program = ExecutableResolver.Resolve(start.FileName);
            start.FileName = setpriv;
            start.ArgumentList.Insert(0, program);
            start.ArgumentList.Insert(0, "--");
            start.ArgumentList.Insert(0, "KILL");
            start.ArgumentList.Insert(0, "--pdeathsig");
        }
        return LaunchedProcess.StartOnKeeperThread(start, diesWithEsp: setpriv is not null);
    }

    private static string? FindSetpriv()
    {
        if (!OperatingSystem.IsLinux()) return null;
        var path = (Environment.GetEnvironmentVariable("PATH") ?? "/usr/bin:/bin").Split(':', StringSplitOptions.RemoveEmptyEntries)
            .Append("/usr/bin").Select(dir => Path.Combine(dir, "setpriv")).FirstOrDefault(File.Exists);
        if (path is null) return null;
        // Old util-linux has setpriv without --pdeathsig (added in 2.33): try it once.
        try
        {
            var probe = new ProcessStartInfo(path) { UseShellExecute = false, RedirectStandardError = true };
            foreach (var a in new[] { "--pdeathsig", "KILL", "--", "/bin/true" }) probe.ArgumentList.Add(a);
            using var p = Process.Start(probe)!;
            p.StandardError.ReadToEnd();
            return p.WaitForExit(10_000) && p.ExitCode == 0 ? path : null;
        }
        catch (Win32Exception)
        {
            return null;
        }
    }
}

/// <summary>A child started by <see cref="ChildProcessLauncher"/>, and the thread that keeps it alive.</summary>
public sealed class LaunchedProcess : IDisposable
{
    private readonly Thread _keeper;
    private readonly ManualResetEventSlim _release;

    private LaunchedProcess(Process process, Thread keeper, ManualResetEventSlim release, bool diesWithEsp)
    {
        Process = process;
        _keeper = keeper;
        _release = release;
        DiesWithEsp = diesWithEsp;
    }

    public Process Process { get; }

    /// <summary>Whether the kernel kills this child when esp dies (false: setpriv missing, or not Linux).</summary>
    public bool DiesWithEsp { get; }

    internal static LaunchedProcess StartOnKeeperThread(ProcessStartInfo start, bool diesWithEsp)
    {
        Process? process = null;
        ExceptionDispatchInfo? failure = null;
        using var started = new ManualResetEventSlim();
        var release = new ManualResetEventSlim();
        var keeper = new Thread(() =>
        {
            try
            {
                process = Process.Start(start) ?? throw new InvalidOperationException($"could not start '{start.FileName}'");
            }
            catch (Exception ex)
            {
                failure = ExceptionDispatchInfo.Capture(ex);
                started.Set();
                return;
            }
            started.Set();
            // The child's parent-death signal is tied to this thread: it waits here until the child is done with.
            release.Wait();
        })
        {
            IsBackground = true, // esp's exit is not held up by it: when esp ends, its children go with it
            Name = "esp child keeper",
        };
        keeper.Start();
        started.Wait();
        if (failure is not null)
        {
            keeper.Join();
            release.Dispose();
            failure.Throw();
        }
        return new LaunchedProcess(process!, keeper, release, diesWithEsp);
    }

    /// <summary>
    /// Lets the keeper thread end. A child still running then is killed by the kernel (SIGKILL), so stop it first
    /// (signal, wait) if it should end cleanly.
    /// </summary>
    public void Dispose()
    {
        _release.Set();
        _keeper.Join();
        _release.Dispose();
        Process.Dispose();
    }
}
