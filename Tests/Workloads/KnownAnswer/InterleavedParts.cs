using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Benchmark.Runs;
using EtwSerializerProfiler.RunMarkers;

namespace EtwSerializerProfiler.Workloads;

/// <summary>
/// The known-answer shape (as AttributesWorkload): inside each marked run, chunks of random part and random length
/// (0.5-3 ms, fixed seed), the runtime work about 35% of the time, the thread CPU clock read around every chunk until
/// the run has used its CPU budget. The work part is a number of items (methods to compile, types to load) sized from
/// the measured cost per item.
/// </summary>
/// <param name="again">The work's calls on items already done (nothing left for the runtime to do): their cost per item
/// is measured before the runs, so the truth can take it out (RuntimeWorkTruth.OverheadMs).</param>
public sealed class InterleavedParts(string name, Func<int, int> work, Func<int, int> again)
{
    private readonly Random _random = new(20261123);
    private long _sink = 1;

    /// <param name="warmups">The first runs are warm-ups (the arithmetic's own JIT and tiering happen there).</param>
    public IReadOnlyList<RuntimeWorkTruth> Run(RunScope scope, int runs, double runMs, int warmups)
    {
        var arithmeticPerUs = Calibrate();
        var msPerItem = 1.0;
        var overheadPerItemMs = Overhead();
        var result = new List<RuntimeWorkTruth>();
        for (var run = 0; run < runs; run++)
        {
            double workMs = 0, arithmeticMs = 0;
            var jitWall = TimeSpan.Zero;
            var items = 0;
            scope.Measure(new RunContext(name, "work", name.ToLowerInvariant(), 1, run, Warmup: run < warmups), () =>
            {
                while (workMs + arithmeticMs < runMs)
                {
                    var chunkMs = 0.5 + _random.NextDouble() * 2.5;
                    if (_random.NextDouble() < 0.35)
                    {
                        var n = Math.Max(1, (int)Math.Round(chunkMs / msPerItem));
                        var done = 0;
                        var jit = System.Runtime.JitInfo.GetCompilationTime(currentThread: true);
                        var ms = ChunkClock.Ms(() => done = work(n));
                        jitWall += System.Runtime.JitInfo.GetCompilationTime(currentThread: true) - jit;
                        workMs += ms;
                        items += done;
                        if (done > 0 && ms > 0) msPerItem = 0.8 * msPerItem + 0.2 * (ms / done);
                    }
                    else
                    {
                        var rounds = Math.Max(1, (int)(chunkMs * 1000 * arithmeticPerUs));
                        arithmeticMs += ChunkClock.Ms(() => _sink = Spin(rounds, _sink | 1));
                    }
                }
            });
            result.Add(new RuntimeWorkTruth(name, run, run < warmups, workMs, arithmeticMs, jitWall.TotalMilliseconds, items, items * overheadPerItemMs));
        }
        GC.KeepAlive(_sink);
        return result;
    }

    /// <summary>CPU per item of the calls alone, on items already done (a few done first), over 5,000 calls: a microsecond or less each.</summary>
    private double Overhead()
    {
        work(20);
        for (var i = 0; i < 50; i++) again(20); // past tier 1 for the calls' own managed code
        return ChunkClock.Ms(() => again(5000)) / 5000;
    }

    private double Calibrate()
    {
        var start = NativeThreadInfo.CurrentThreadCpuTime();
        var done = 0L;
        while ((NativeThreadInfo.CurrentThreadCpuTime() - start).TotalMilliseconds < 20) { _sink = Spin(20, _sink | 1); done += 20; }
        return done / ((NativeThreadInfo.CurrentThreadCpuTime() - start).TotalMilliseconds * 1000);
    }

    /// <summary>
    /// The arithmetic, compiled fully optimized at once. Tiered, it stayed in tier-0 instrumented code: the JIT workload
    /// compiles new methods all the time, which keeps postponing tier 1, and tier-0 loops call the runtime's
    /// patchpoint helper (measured: 250 ms of 930 in the stripped runtime, called from Arithmetic.Step, unexplained).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization | MethodImplOptions.NoInlining)]
    private static long Spin(int rounds, long x)
    {
        for (var r = 0; r < rounds; r++)
        {
            for (var i = 0; i < 64; i++)
            {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
            }
        }
        return x;
    }
}
