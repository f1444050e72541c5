using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.Benchmark.Runs.TracingCost;

/// <summary>
/// Test switch (--inject-traced-work F): while tracing is on in the tracing-cost blocks, every operation spins for F
/// times the case's median untraced CPU time per operation, so the cost the tool must report is known (F plus tracing's own).
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
        var until = Stopwatch.GetTimestamp() + ticks;
        while (Stopwatch.GetTimestamp() < until) { }
    }
}
