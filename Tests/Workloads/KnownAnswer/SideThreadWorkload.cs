using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Benchmark.Runs;
using EtwSerializerProfiler.RunMarkers;

namespace EtwSerializerProfiler.Workloads;

/// <summary>One side-thread run's truth: the case, and the CPU clock of the side thread over the run (0 when alone).</summary>
public sealed record SideThreadTruth(string Case, int Run, bool Warmup, double WorkerMs, double SideMs);

/// <summary>
/// Work beside the workers, of known size: each run burns <c>runMs</c> of the worker's CPU; in the "Helped" case a
/// named thread ("Side burner") burns half as much at the same time, which the run's CPU column leaves out and the
/// other-threads figure counts (role other); in the "Alone" case nothing else runs. Both read their CPU clocks.
/// </summary>
public sealed class SideThreadWorkload
{
    private long _sink = 1;

    public IReadOnlyList<SideThreadTruth> Run(RunScope scope, int runs, double runMs)
    {
        var result = new List<SideThreadTruth>();
        for (var run = 0; run < runs; run++)
            foreach (var helped in new[] { false, true })
            {
                double workerMs = 0, sideMs = 0;
                Thread? side = null;
                scope.Measure(new RunContext(helped ? "Helped" : "Alone", "work", "side", 1, run, Warmup: run == 0), () =>
                {
                    if (helped)
                    {
                        side = new Thread(() => sideMs = Burn(runMs / 2)) { Name = "Side burner", IsBackground = true };
                        side.Start();
                    }
                    workerMs = Burn(runMs);
                    side?.Join();
                });
                result.Add(new SideThreadTruth(helped ? "Helped" : "Alone", run, run == 0, workerMs, sideMs));
            }
        GC.KeepAlive(_sink);
        return result;
    }

    /// <summary>Spins until this thread's CPU clock has advanced by <paramref name="ms"/>; returns what it read.</summary>
    private double Burn(double ms)
    {
        var start = NativeThreadInfo.CurrentThreadCpuTime();
        double used;
        var x = _sink | 1;
        while ((used = (NativeThreadInfo.CurrentThreadCpuTime() - start).TotalMilliseconds) < ms) x = Spin(x);
        Interlocked.Add(ref _sink, x & 1);
        return used;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Spin(long x)
    {
        for (var i = 0; i < 4096; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; }
        return x;
    }
}
