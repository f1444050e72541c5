using System.Reflection;
using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Benchmark.Runs;
using EtwSerializerProfiler.RunMarkers;

namespace EtwSerializerProfiler.Workloads;

/// <summary>
/// Work called through MethodInfo.Invoke: each call runs about 1 ms of arithmetic, so reflection's own part (the
/// invoke, a few hundred nanoseconds) is well under 0.1% of the CPU. A classifier that charges code called through
/// reflection to reflection reports nearly all of it; the truth is at most 1%.
/// </summary>
public sealed class InvokeWorkload
{
    private static readonly MethodInfo s_work = typeof(InvokeWorkload).GetMethod(nameof(Work), BindingFlags.Static | BindingFlags.NonPublic)!;
    private long _sink = 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Work(int rounds, long x) => Arithmetic.Loop(rounds, x);

    public void Run(RunScope scope, int runs, double runMs)
    {
        var rounds = 1000;
        for (var run = 0; run < runs; run++)
        {
            scope.Measure(new RunContext("Invoke", "invoke", "arithmetic", 1, run, Warmup: run == 0), () =>
            {
                // Thread CPU time, not wall time: a busy machine then stretches the run instead of thinning its samples.
                var start = NativeThreadInfo.CurrentThreadCpuTime();
                var sw = System.Diagnostics.Stopwatch.StartNew();
                while ((NativeThreadInfo.CurrentThreadCpuTime() - start).TotalMilliseconds < runMs)
                {
                    var t = sw.Elapsed.TotalMilliseconds;
                    _sink = (long)s_work.Invoke(null, [rounds, _sink | 1])!;
                    // Keep each call near 1 ms whatever tiering and the machine's load do to its speed.
                    var ms = sw.Elapsed.TotalMilliseconds - t;
                    if (ms > 0) rounds = Math.Clamp((int)(rounds * (1.0 / ms)), 100, 1_000_000);
                }
            });
        }
        GC.KeepAlive(_sink);
    }
}
