using System.Runtime.InteropServices;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>
/// The native calls of <see cref="NativeThreadInfo"/> on .NET Framework, which has no LibraryImport: classic DllImport.
/// Only the kernel32 ones are ever called there (.NET Framework runs on Windows only); the libc ones keep the shared
/// code compiling unchanged.
/// </summary>
public static partial class NativeThreadInfo
{
    [DllImport("libc", SetLastError = false)]
    private static extern int gettid();

    [DllImport("libc", SetLastError = false)]
    private static extern int clock_gettime(int clockId, out TimeSpec time);

    [DllImport("libc", SetLastError = false)]
    private static extern int pthread_threadid_np(IntPtr thread, out ulong threadId);

    [DllImport("kernel32.dll")]
    private static extern uint GetCurrentThreadId();

    [DllImport("kernel32.dll")]
    private static extern IntPtr GetCurrentThread();

    [DllImport("kernel32.dll")]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static extern bool GetThreadTimes(IntPtr thread, out long creation, out long exit, out long kernel, out long user);
}
