using System.Runtime.CompilerServices;

namespace EtwSerializerProfiler.RunMarkers;

/// <summary>
/// How the per-run code is compiled. On .NET it is fully optimized from its first call: it runs once per run, and if it
/// tiered like ordinary code its own tier-ups would be JIT activity inside the first hundred runs (the benchmark's
/// warm-up waits for the JIT to go quiet). netstandard2.0 cannot say so, and .NET Framework has no tiers to wait for.
/// </summary>
internal static class Harness
{
#if NET
    public const MethodImplOptions Optimized = MethodImplOptions.AggressiveOptimization;
#else
    public const MethodImplOptions Optimized = 0;
#endif
}
