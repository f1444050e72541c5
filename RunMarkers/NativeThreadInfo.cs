using System.Runtime.InteropServices;

namespace EtwSerializerProfiler.RunMarkers;

/// <summary>
/// OS-level thread id and thread CPU time. Traces key events by the OS thread id, which .NET does not expose,
/// and per-thread CPU time is the in-process truth the analyzer's CPU column is compared with. The native declarations
/// are per framework: LibraryImport (NativeThreadInfo.LibraryImport.cs) on .NET 8+, DllImport (NativeThreadInfo.DllImport.cs)
/// on netstandard2.0 (.NET Framework).
/// </summary>
public static partial class NativeThreadInfo
{
    /// <summary>The calling thread's id as the OS and every trace know it (Linux gettid, Windows GetCurrentThreadId).</summary>
    public static int CurrentOsThreadId()
    {
        if (Platform.IsWindows) return (int)GetCurrentThreadId();
        if (Platform.IsLinux) return gettid();
        if (Platform.IsMacOS && pthread_threadid_np(IntPtr.Zero, out var tid) == 0) return (int)tid;
        return Environment.CurrentManagedThreadId;
    }

    /// <summary>CPU time consumed by the calling thread, or by the process where the OS offers no per-thread clock.</summary>
    public static TimeSpan CurrentThreadCpuTime()
    {
        if (Platform.IsLinux || Platform.IsMacOS)
        {
            const int ClockThreadCpuTimeId = 3; // CLOCK_THREAD_CPUTIME_ID on Linux and macOS
            if (clock_gettime(ClockThreadCpuTimeId, out var ts) == 0)
                return TimeSpan.FromTicks(ts.Seconds * TimeSpan.TicksPerSecond + ts.Nanoseconds / 100);
        }
        else if (Platform.IsWindows && GetThreadTimes(GetCurrentThread(), out _, out _, out var kernel, out var user))
        {
            return TimeSpan.FromTicks(kernel + user);
        }
        return System.Diagnostics.Process.GetCurrentProcess().TotalProcessorTime;
    }

    /// <summary>
    /// CPU time consumed so far by every thread of this process, live and exited: Linux's and macOS's process CPU clock
    /// (nanoseconds, and no allocation), elsewhere the process's processor time.
    /// </summary>
    public static TimeSpan ProcessCpuTime()
    {
        // CLOCK_PROCESS_CPUTIME_ID: 2 on Linux, 12 on macOS.
        var clockId = Platform.IsLinux ? 2 : Platform.IsMacOS ? 12 : -1;
        if (clockId >= 0 && clock_gettime(clockId, out var ts) == 0)
            return TimeSpan.FromTicks(ts.Seconds * TimeSpan.TicksPerSecond + ts.Nanoseconds / 100);
        return System.Diagnostics.Process.GetCurrentProcess().TotalProcessorTime;
    }

    /// <summary>
    /// CPU time consumed so far by another thread of this process, by its OS thread id; null where the OS gives no
    /// such clock to read from outside the thread (only Linux does here: the thread's CPU clock id, as glibc's
    /// pthread_getcpuclockid makes it) or the thread has exited.
    /// </summary>
    public static TimeSpan? ThreadCpuTime(int osThreadId)
    {
        if (!Platform.IsLinux || osThreadId <= 0) return null;
        // MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED): ((~tid) << 3) | CPUCLOCK_PERTHREAD_MASK (4) | CPUCLOCK_SCHED (2).
        var clockId = (~osThreadId << 3) | 6;
        return clock_gettime(clockId, out var ts) == 0 ? TimeSpan.FromTicks(ts.Seconds * TimeSpan.TicksPerSecond + ts.Nanoseconds / 100) : null;
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }
}
