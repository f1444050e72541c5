using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Benchmark.Runs;

namespace EtwSerializerProfiler.Workloads;

/// <summary>
/// One hot-ratio run's truth: N, each method's thread CPU time (the clock read around every chunk), and the run's own
/// thread CPU clock as the run marker read it (what the CPU column is held to).
/// </summary>
public sealed record HotRatioTruth(int Objects, int Run, bool Warmup, double AlphaMs, double BetaMs, double RunCpuMs);

/// <summary>
/// Two methods in a fixed ratio of work that differs by N, for hot methods per N: at N=100 Alpha does 70% of the work
/// and Beta 30%; at N=10,000 the other way round (25% and 75%). A table that pooled the two N would show about half
/// each. Inside each marked run, chunks of random method and random length (0.5-3 ms, fixed seed) with the thread CPU
/// clock read around each (ChunkClock), until the run has used its CPU budget. The runs of the two N alternate; the
/// first run of each N is a warm-up. Each method's work is its own leaf (<see cref="AlphaStep"/>, <see cref="BetaStep"/>):
/// register-only arithmetic, so its exclusive time is the method's time whatever the unwinder keeps of its callers.
/// </summary>
public sealed class HotRatioWorkload
{
    /// <summary>N -> Alpha's share of the work.</summary>
    public static readonly IReadOnlyDictionary<int, double> AlphaShare = new Dictionary<int, double> { [100] = 0.70, [10_000] = 0.25 };

    private readonly Random _random = new(20261125);
    private readonly double[] _roundsPerUs = new double[2];
    private long _sink = 1;

    public IReadOnlyList<HotRatioTruth> Run(RunScope scope, int runs, double runMs)
    {
        Calibrate();
        var result = new List<HotRatioTruth>();
        for (var run = 0; run < runs; run++)
        {
            foreach (var (n, alphaShare) in AlphaShare)
            {
                var cpu = new double[2];
                var measured = scope.Measure(new RunContext("HotRatio", "work", "ratio", n, run, Warmup: run == 0), () =>
                {
                    while (cpu[0] + cpu[1] < runMs)
                    {
                        var part = _random.NextDouble() < alphaShare ? 0 : 1;
                        var rounds = Math.Max(1, (int)((500 + _random.NextDouble() * 2500) * _roundsPerUs[part]));
                        var ms = ChunkClock.Ms(() => RunPart(part, rounds));
                        cpu[part] += ms;
                        if (ms > 0) _roundsPerUs[part] = 0.8 * _roundsPerUs[part] + 0.2 * (rounds / (ms * 1000));
                    }
                });
                result.Add(new HotRatioTruth(n, run, run == 0, cpu[0], cpu[1], measured.CpuMs));
            }
        }
        GC.KeepAlive(_sink);
        return result;
    }

    /// <summary>Rounds per microsecond of each method, past tier 1 first.</summary>
    private void Calibrate()
    {
        for (var part = 0; part < 2; part++)
        {
            for (var i = 0; i < 100; i++) RunPart(part, 100);
            var sw = System.Diagnostics.Stopwatch.StartNew();
            var done = 0L;
            while (sw.Elapsed.TotalMilliseconds < 20) { RunPart(part, 100); done += 100; }
            _roundsPerUs[part] = done / (sw.Elapsed.TotalMilliseconds * 1000);
        }
    }

    private void RunPart(int part, int rounds) => _sink = part == 0 ? Alpha(rounds, _sink | 1) : Beta(rounds, _sink | 1);

    // Each method calls a loop that calls its leaf: shaped like the other known-answer parts (Arithmetic, PartsWorkload).

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Alpha(int rounds, long x)
    {
        for (var i = 0; i < rounds; i++) x = AlphaStep(x);
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long AlphaStep(long x)
    {
        for (var i = 0; i < 64; i++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Beta(int rounds, long x)
    {
        for (var i = 0; i < rounds; i++) x = BetaStep(x);
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long BetaStep(long x)
    {
        for (var i = 0; i < 64; i++)
        {
            x += x << 5;
            x ^= x >> 11;
            x *= unchecked((long)0x9E3779B97F4A7C15);
        }
        return x;
    }
}
