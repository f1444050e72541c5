using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.Benchmark.Runs;

/// <summary>
/// How the benchmark's own per-run code is compiled. On .NET it is fully optimized from its first call, so its own
/// tier-ups do not hold the warm-up open (Warmup/SteadyStateRule.cs); .NET Framework has no tiers to wait for.
/// </summary>
internal static class HarnessCode
{
#if NETFRAMEWORK
    public const MethodImplOptions Optimized = 0;
#else
    public const MethodImplOptions Optimized = MethodImplOptions.AggressiveOptimization;
#endif
}
