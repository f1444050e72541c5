using System.Diagnostics;
using System.Globalization;
using System.Text;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Processes;

namespace EtwSerializerProfiler.Recorder.Kernel;

/// <summary>
/// The Linux kernel session: `perf record -p PID` beside the EventPipe session, on EventPipe's clock
/// (CLOCK_MONOTONIC). perf starts with its events disabled and is enabled through its control FIFO; the ack means
/// every thread of the process is being recorded, so the runtime is resumed only after it. Threads created later
/// inherit the events. perf ends by itself when the process exits.
/// </summary>
public sealed class PerfSession : IAsyncDisposable
{
    private static readonly TimeSpan EnableTimeout = TimeSpan.FromSeconds(20);
    /// <summary>
    /// How often perf is asked to write what its buffers hold. perf writes only when a buffer is half full (2 MB of
    /// --mmap-pages 1024: about 7 s of a 1 ms sampler), so a kill -9 of esp, which takes perf with it, lost up to that
    /// much of the kernel session (everything of a recording killed 5 s in). A `ping` on the control FIFO wakes perf,
    /// which then drains every buffer to the file: a kill loses about this much.
    /// </summary>
    public static readonly TimeSpan FlushInterval = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan PingTimeout = TimeSpan.FromSeconds(2);
    private readonly SemaphoreSlim _control = new(1, 1);
    private readonly CancellationTokenSource _stopFlushing = new();
    private Task _flushing = Task.CompletedTask;
    private readonly LaunchedProcess _launched;
    private readonly Process _perf;
    private readonly string _fifoDir;
    private readonly StringBuilder _log = new();
    private readonly Task _logPump;

    public string DataPath { get; }

    private PerfSession(LaunchedProcess launched, string fifoDir, string dataPath)
    {
        _launched = launched;
        var perf = _perf = launched.Process;
        _fifoDir = fifoDir;
        DataPath = dataPath;
        _logPump = Task.Run(async () =>
        {
            while (await perf.StandardError.ReadLineAsync().ConfigureAwait(false) is { } line)
                lock (_log) _log.AppendLine(line);
        });
        // When perf ended, taken as it ends: a perf killed mid-recording is noticed later (LinuxKernelSession.NoticeDeath).
        _ = perf.WaitForExitAsync(CancellationToken.None).ContinueWith(_ => ExitedAtUtc = DateTime.UtcNow, TaskScheduler.Default);
    }

    /// <summary>When perf's process ended; null while it runs.</summary>
    public DateTime? ExitedAtUtc { get; private set; }

    public int ProcessId => _perf.Id;

    /// <summary>perf's exit code once it has ended.</summary>
    public int? ExitCode => _perf.HasExited ? _perf.ExitCode : null;

    /// <summary>Starts perf on the (suspended) process and returns once perf has enabled its events.</summary>
    /// <summary>perf's ring buffer per CPU, in 4 KB pages: it writes what it holds in bursts of up to this much.</summary>
    public const int MmapPages = 1024;
    /// <summary>On a nearly full disk: bursts small enough for the recorder to cut the trace before perf meets the full disk.</summary>
    public const int TightDiskMmapPages = 64;

    /// <param name="scratch">
    /// A session whose data nobody reads (--tracing-cost's traced blocks): no build ids gathered at its end, and no
    /// flushes, which only guard a kill of esp (they would wake perf in the untraced blocks).
    /// </param>
    public static async Task<PerfSession> StartAsync(PerfAvailability perf, int pid, string dataPath, CancellationToken cancel, int mmapPages = MmapPages, bool scratch = false)
    {
        var fifoDir = Path.Combine(Path.GetTempPath(), $"esp-perf-{Environment.ProcessId}-{Guid.NewGuid():N}");
        Directory.CreateDirectory(fifoDir);
        var ctl = Path.Combine(fifoDir, "ctl");
        var ack = Path.Combine(fifoDir, "ack");
        PerfSession? session = null;
        try
        {
            Fifo.Create(ctl);
            Fifo.Create(ack);
            List<string> args = ["record", "-D", "-1", "--control", $"fifo:{ctl},{ack}", "-k", PerfRecording.Clock, "--mmap-pages", mmapPages.ToString(CultureInfo.InvariantCulture), .. perf.RecordOptions];
            foreach (var e in perf.Accepted) args.AddRange(["-e", e.Spec]);
            // Exact switch-in and switch-out times of the process's own threads (sched_switch fires only when one of
            // them is switched out, so it cannot say when a thread got the CPU back).
            if (perf.Accepted.Any(e => e.Name == PerfRecording.SchedSwitch)) args.Add(PerfRecording.SwitchEventsOption);
            if (scratch) args.Add("--no-buildid");
            args.AddRange(["-p", pid.ToString(CultureInfo.InvariantCulture), "-o", dataPath]);
            var psi = new ProcessStartInfo(perf.PerfPath!) { UseShellExecute = false, RedirectStandardError = true, RedirectStandardOutput = false };
            foreach (var a in args) psi.ArgumentList.Add(a);
            // Started so that it dies with esp: a killed esp must not leave perf recording (Processes/ChildProcessLauncher.cs).
            session = new PerfSession(ChildProcessLauncher.Start(psi), fifoDir, dataPath);
            await session.EnableAsync(ctl, ack, cancel).ConfigureAwait(false);
            if (!scratch) session._flushing = session.FlushAsync(session._stopFlushing.Token);
            return session;
        }
        catch
        {
            if (session is not null) await session.DisposeAsync().ConfigureAwait(false);
            else FileCleanup.TryDeleteDirectory(fifoDir);
            throw;
        }
    }

    public string CommandLine => $"{_perf.StartInfo.FileName} {string.Join(' ', _perf.StartInfo.ArgumentList)}";

    /// <summary>Turns perf's events off through its control FIFO (--tracing-cost: the trace ends here).</summary>
    public async Task DisableAsync()
    {
        await StopFlushingAsync().ConfigureAwait(false);
        await SuspendAsync().ConfigureAwait(false);
    }

    /// <summary>Turns perf's events on again after <see cref="SuspendAsync"/>; false when perf did not acknowledge it in time.</summary>
    public Task<bool> ResumeAsync() => CommandAsync("enable\n"u8.ToArray(), EnableTimeout);

    /// <summary>Turns perf's events off, to be resumed; false when perf did not acknowledge it in time.</summary>
    public Task<bool> SuspendAsync() => CommandAsync("disable\n"u8.ToArray(), EnableTimeout);

    /// <summary>Pings perf every <see cref="FlushInterval"/> so that its buffers reach the file; stops at the first ping perf does not answer (a perf older than 5.11 has no ping).</summary>
    private async Task FlushAsync(CancellationToken stop)
    {
        try
        {
            while (!_perf.HasExited)
            {
                await Task.Delay(FlushInterval, stop).ConfigureAwait(false);
                ReadCpu();
                if (!await CommandAsync("ping\n"u8.ToArray(), PingTimeout, stop).ConfigureAwait(false)) return;
            }
        }
        catch (Exception ex) when (ex is OperationCanceledException or IOException or ObjectDisposedException) { } // stopping, or perf's pipe closed: flushing ends
    }

    /// <summary>
    /// perf's own CPU time while it recorded, in seconds: read each flush and before it is stopped (a process that has
    /// exited cannot be read), so the last second or so of it may be missing. Null until read.
    /// </summary>
    public double? CpuSeconds { get; private set; }

    private void ReadCpu()
    {
        try { CpuSeconds = _perf.TotalProcessorTime.TotalSeconds; }
        catch (Exception ex) when (ex is InvalidOperationException or System.ComponentModel.Win32Exception or NotSupportedException) { } // perf exited or the platform cannot tell: CpuSeconds keeps its last value
    }

    private async Task StopFlushingAsync()
    {
        ReadCpu();
        _stopFlushing.Cancel();
        await _flushing.ConfigureAwait(false);
    }

    /// <summary>One command on the control FIFO, one at a time; true when perf acknowledged it in time.</summary>
    private async Task<bool> CommandAsync(byte[] command, TimeSpan timeout, CancellationToken stop = default)
    {
        await _control.WaitAsync(stop).ConfigureAwait(false);
        try
        {
            if (_perf.HasExited) return false;
            await using var ctl = new FileStream(File.OpenHandle(Path.Combine(_fifoDir, "ctl"), FileMode.Open, FileAccess.ReadWrite), FileAccess.ReadWrite, 0);
            await using var ack = new FileStream(File.OpenHandle(Path.Combine(_fifoDir, "ack"), FileMode.Open, FileAccess.ReadWrite), FileAccess.ReadWrite, 0);
            ctl.Write(command);
            var buffer = new byte[16];
            var read = Task.Run(() => ack.Read(buffer), CancellationToken.None);
            if (await Task.WhenAny(read, Task.Delay(timeout, CancellationToken.None)).ConfigureAwait(false) == read) return true;
            ack.Write("x"u8); // release the reader thread
            await read.ConfigureAwait(false);
            return false;
        }
        finally
        {
            _control.Release();
        }
    }

    /// <summary>
    /// Both FIFOs are opened read-write: on Linux that never blocks, whether or not perf has opened its ends yet,
    /// and if perf dies before answering, a byte written to our own ack end releases the waiting reader.
    /// </summary>
    private async Task EnableAsync(string ctlPath, string ackPath, CancellationToken cancel)
    {
        await using var ctl = new FileStream(File.OpenHandle(ctlPath, FileMode.Open, FileAccess.ReadWrite), FileAccess.ReadWrite, 0);
        await using var ack = new FileStream(File.OpenHandle(ackPath, FileMode.Open, FileAccess.ReadWrite), FileAccess.ReadWrite, 0);
        ctl.Write("enable\n"u8);
        var buffer = new byte[16];
        var read = Task.Run(() => ack.Read(buffer), CancellationToken.None);
        var exited = _perf.WaitForExitAsync(CancellationToken.None);
        var first = await Task.WhenAny(read, exited, Task.Delay(EnableTimeout, cancel)).ConfigureAwait(false);
        if (first != read)
        {
            ack.Write("x"u8); // release the reader thread
            await read.ConfigureAwait(false);
            cancel.ThrowIfCancellationRequested();
            if (first == exited) throw new IOException($"perf exited with code {_perf.ExitCode} before recording: {LastLogLine()}");
            throw new IOException($"perf did not enable its events within {EnableTimeout.TotalSeconds:F0} s");
        }
        var answer = Encoding.ASCII.GetString(buffer, 0, await read.ConfigureAwait(false));
        if (!answer.StartsWith("ack", StringComparison.Ordinal)) throw new IOException($"perf answered '{answer.Trim()}' to enable");
    }

    /// <summary>
    /// Waits for perf to finish writing after the process ended (it notices by itself); interrupted recordings and a
    /// perf that does not notice get SIGINT, which makes perf write a complete file; only then is it killed.
    /// </summary>
    public async Task<PerfSessionResult> StopAsync(bool interrupt)
    {
        await StopFlushingAsync().ConfigureAwait(false);
        if (interrupt) Signal(SigInt);
        if (!await ExitedWithin(TimeSpan.FromSeconds(interrupt ? 15 : 10)).ConfigureAwait(false))
        {
            Signal(SigInt);
            if (!await ExitedWithin(TimeSpan.FromSeconds(15)).ConfigureAwait(false))
            {
                try { _perf.Kill(); } catch (InvalidOperationException) { } // perf exited already
                await ExitedWithin(TimeSpan.FromSeconds(5)).ConfigureAwait(false);
            }
        }
        await _logPump.WaitAsync(TimeSpan.FromSeconds(5)).ConfigureAwait(false);
        var log = Log;
        return new PerfSessionResult(_perf.HasExited ? _perf.ExitCode : -1, File.Exists(DataPath) ? new FileInfo(DataPath).Length : 0, log);
    }

    public string Log { get { lock (_log) return _log.ToString(); } }

    private string LastLogLine() => Log.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).LastOrDefault() ?? "(no output)";

    private async Task<bool> ExitedWithin(TimeSpan timeout)
    {
        try { await _perf.WaitForExitAsync(CancellationToken.None).WaitAsync(timeout).ConfigureAwait(false); return true; }
        catch (TimeoutException) { return false; }
    }

    private const int SigInt = 2;

    private void Signal(int signal)
    {
        if (!_perf.HasExited) _ = Fifo.Kill(_perf.Id, signal);
    }

    public async ValueTask DisposeAsync()
    {
        await StopFlushingAsync().ConfigureAwait(false);
        if (!_perf.HasExited)
        {
            try { _perf.Kill(); } catch (InvalidOperationException) { } // perf exited already
            await ExitedWithin(TimeSpan.FromSeconds(5)).ConfigureAwait(false);
        }
        _launched.Dispose();
        FileCleanup.TryDeleteDirectory(_fifoDir);
    }
}

public sealed record PerfSessionResult(int ExitCode, long DataBytes, string Log)
{
    /// <summary>perf's own count of lost chunks ("Processed N events and lost M chunks!"), if it printed one.</summary>
    public long LostChunks
    {
        get
        {
            var m = System.Text.RegularExpressions.Regex.Match(Log, @"lost (\d+) chunks");
            return m.Success ? long.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture) : 0;
        }
    }
}

internal static partial class Fifo
{
    public static void Create(string path)
    {
        if (MkFifo(path, Convert.ToUInt32("600", 8)) != 0)
            throw new IOException($"mkfifo {path} failed (errno {System.Runtime.InteropServices.Marshal.GetLastPInvokeError()})");
    }

    [System.Runtime.InteropServices.LibraryImport("libc", EntryPoint = "mkfifo", StringMarshalling = System.Runtime.InteropServices.StringMarshalling.Utf8, SetLastError = true)]
    private static partial int MkFifo(string path, uint mode);

    [System.Runtime.InteropServices.LibraryImport("libc", EntryPoint = "kill")]
    internal static partial int Kill(int pid, int signal);
}
