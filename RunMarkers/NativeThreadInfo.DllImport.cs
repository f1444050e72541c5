using System.Runtime.InteropServices;

namespace EtwSerializerProfiler.RunMarkers;

/// <summary>
/// The native calls of <see cref="NativeThreadInfo"/> on netstandard2.0 (.NET Framework), which has no LibraryImport: classic DllImport.
/// .NET Framework calls only the kernel32 ones (it runs on Windows only); a runtime that picks this build elsewhere (Mono,
/// .NET Core before 8) calls the libc ones through DllImport just as well.
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
