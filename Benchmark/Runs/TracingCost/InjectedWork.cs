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

    public static void Set(double ms) => s_ticksPerOperation = ms <= 0 ? 0 : (long)(ms * Stopwatch.Frequency / 1000.0);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void AfterOperation()
    {
        var ticks = s_ticksPerOperation;
        if (ticks == 0) return;
        Spin(ticks);
    }

    /// <summary>
    /// Spins until the thread's own CPU clock has advanced by the ticks: a wall-clock spin gave less CPU than asked when
    /// the thread was preempted (CI under load: +27.1% read for +50% injected).
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Spin(long ticks)
    {
        var until = EtwSerializerProfiler.RunMarkers.NativeThreadInfo.CurrentThreadCpuTime() + TimeSpan.FromSeconds((double)ticks / Stopwatch.Frequency);
        while (EtwSerializerProfiler.RunMarkers.NativeThreadInfo.CurrentThreadCpuTime() < until) { }
    }
}
