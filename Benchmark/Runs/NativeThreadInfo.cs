using System.Runtime.InteropServices;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>
/// OS-level thread id and thread CPU time. Traces key events by the OS thread id, which .NET does not expose,
/// and per-thread CPU time is the in-process truth the sampled CPU column is compared with. The native declarations
/// are per framework: LibraryImport (NativeThreadInfo.LibraryImport.cs) on .NET 10, DllImport (Compat/) on .NET Framework.
/// </summary>
public static partial class NativeThreadInfo
{
    public static int CurrentOsThreadId()
    {
        if (OperatingSystem.IsWindows()) return (int)GetCurrentThreadId();
        if (OperatingSystem.IsLinux()) return gettid();
        if (OperatingSystem.IsMacOS() && pthread_threadid_np(IntPtr.Zero, out var tid) == 0) return (int)tid;
        return Environment.CurrentManagedThreadId;
    }

    /// <summary>CPU time consumed by the calling thread, or by the process where the OS offers no per-thread clock.</summary>
    public static TimeSpan CurrentThreadCpuTime()
    {
        if (OperatingSystem.IsLinux() || OperatingSystem.IsMacOS())
        {
            const int ClockThreadCpuTimeId = 3; // CLOCK_THREAD_CPUTIME_ID on Linux and macOS
            if (clock_gettime(ClockThreadCpuTimeId, out var ts) == 0)
                return TimeSpan.FromTicks(ts.Seconds * TimeSpan.TicksPerSecond + ts.Nanoseconds / 100);
        }
        else if (OperatingSystem.IsWindows() && GetThreadTimes(GetCurrentThread(), out _, out _, out var kernel, out var user))
        {
            return TimeSpan.FromTicks(kernel + user);
        }
        return System.Diagnostics.Process.GetCurrentProcess().TotalProcessorTime;
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }
}
