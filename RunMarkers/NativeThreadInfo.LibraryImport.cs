using System.Runtime.InteropServices;

namespace EtwSerializerProfiler.RunMarkers;

/// <summary>The native calls of <see cref="NativeThreadInfo"/> on .NET 8+ (source-generated marshalling).</summary>
public static partial class NativeThreadInfo
{
    [LibraryImport("libc", SetLastError = false)]
    private static partial int gettid();

    [LibraryImport("libc", SetLastError = false)]
    private static partial int clock_gettime(int clockId, out TimeSpec time);

    [LibraryImport("libc", SetLastError = false)]
    private static partial int pthread_threadid_np(IntPtr thread, out ulong threadId);

    [LibraryImport("kernel32.dll")]
    private static partial uint GetCurrentThreadId();

    [LibraryImport("kernel32.dll")]
    private static partial IntPtr GetCurrentThread();

    [LibraryImport("kernel32.dll")]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool GetThreadTimes(IntPtr thread, out long creation, out long exit, out long kernel, out long user);
}
