using System.Runtime.CompilerServices;
namespace EtwSerializerProfiler.Benchmark.Runs.Warmup;

/// <summary>The JIT's own counters at one moment, for the whole process (background tier-up compiles included).</summary>
/// <param name="ThreadCompilationTime">The reading thread's own JIT time (the run's worker: what a trace's JIT events on it are held to).</param>
public readonly record struct JitSnapshot(long CompiledMethods, TimeSpan CompilationTime, TimeSpan ThreadCompilationTime = default)
{
    public static JitSnapshot operator -(JitSnapshot after, JitSnapshot before) =>
        new(after.CompiledMethods - before.CompiledMethods, after.CompilationTime - before.CompilationTime, after.ThreadCompilationTime - before.ThreadCompilationTime);
}

/// <summary>
/// Reads System.Runtime.JitInfo (.NET 6+). It is the in-process signal that the runtime is still compiling the code
/// being measured: tier-0 code for new methods, then tier-1 (instrumented, then optimized) for hot ones on a background
/// thread, which is why the whole process is counted and not the calling thread. Isolated here so a runtime without
/// JitInfo (.NET Framework) substitutes a version whose <see cref="Take"/> returns null: the warm-up then relies on
/// the durations alone.
/// </summary>
public static class JitCounters
{
    [MethodImpl(HarnessCode.Optimized)]
    public static JitSnapshot? Take() =>
#if NETFRAMEWORK
        null; // no JitInfo, and no tiers: code is compiled once, optimized
#else
        new JitSnapshot(System.Runtime.JitInfo.GetCompiledMethodCount(currentThread: false), System.Runtime.JitInfo.GetCompilationTime(currentThread: false),
            System.Runtime.JitInfo.GetCompilationTime(currentThread: true));
#endif
}
