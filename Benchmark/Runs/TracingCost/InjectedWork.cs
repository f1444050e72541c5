using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.Benchmark.Runs.TracingCost;

/// <summary>
/// Test switch (--inject-traced-work F): while tracing is on in the tracing-cost blocks, every operation spins for F
/// times the case's median untraced CPU time per operation, of its own thread's CPU, so the cost the tool must report is known (F plus tracing's own).
/// Zero everywhere else: one static read per operation.
/// </summary>
public static class InjectedWork
{
    private static long s_ticksPerOperation;
    private static long s_readTicks = -1;

    /// <summary>
    /// Spin this long per operation, less what the spin's own clock reads cost beyond it (about one and a half reads):
    /// measured once, since a thread CPU clock read is a system call (0.3-1 µs here).
    /// </summary>
    public static void Set(double ms)
    {
        if (ms > 0 && s_readTicks < 0) s_readTicks = ReadTicks();
        s_ticksPerOperation = ms <= 0 ? 0 : Math.Max(1, (long)(ms * Stopwatch.Frequency / 1000.0) - 3 * s_readTicks / 2);
    }

    private static long ReadTicks()
    {
        const int reads = 1000;
        var start = EtwSerializerProfiler.RunMarkers.NativeThreadInfo.CurrentThreadCpuTime();
        for (var i = 0; i < reads; i++) EtwSerializerProfiler.RunMarkers.NativeThreadInfo.CurrentThreadCpuTime();
        var spent = EtwSerializerProfiler.RunMarkers.NativeThreadInfo.CurrentThreadCpuTime() - start;
        return (long)(spent.TotalSeconds * Stopwatch.Frequency / reads);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void AfterOperation()
    {
        var ticks = s_ticksPerOperation;
        if (ticks == 0) return;
        Spin(ticks);
    }

    /// <summary>
    /// Spins until the thread's own CPU clock has advanced by the ticks: a wall-clock spin gave less CPU than asked when
    /// the thread was preempted (CI under load: +27.1% read for +50% injected). Between reads of that clock (a system
    /// call) it spins on the Stopwatch for what is left: a read per loop slowed the operations after it too.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Spin(long ticks)
    {
        var until = EtwSerializerProfiler.RunMarkers.NativeThreadInfo.CurrentThreadCpuTime() + TimeSpan.FromSeconds((double)ticks / Stopwatch.Frequency);
        while (true)
        {
            var left = until - EtwSerializerProfiler.RunMarkers.NativeThreadInfo.CurrentThreadCpuTime();
            if (left <= TimeSpan.Zero) return;
            var wallUntil = Stopwatch.GetTimestamp() + Math.Max(1, (long)(left.TotalSeconds * Stopwatch.Frequency));
            while (Stopwatch.GetTimestamp() < wallUntil) { }
        }
    }
}
