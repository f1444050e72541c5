using System.Runtime.InteropServices;
using EtwSerializerProfiler.Benchmark.Runs;
using EtwSerializerProfiler.RunMarkers;

namespace EtwSerializerProfiler.Workloads;

/// <summary>Each native function's thread CPU time in one marked run, in milliseconds.</summary>
public sealed record NativeTruth(int Run, double AlphaMs, double BetaMs);

/// <summary>
/// Native code with a known answer: two C functions of a library the test compiles (Native/espburn.c, its debug info
/// split off and the library stripped), called through P/Invoke in chunks of random function and length (0.5-3 ms,
/// fixed seed), the thread CPU clock read around every chunk. Shares aimed at: 60% alpha_spin, 40% beta_spin. Without
/// the debug file perf names neither function; with it, both, in these shares.
/// </summary>
public sealed class NativeWorkload(string library)
{
    private static readonly double[] Weights = [0.6, 0.4];
    private readonly Random _random = new(20261123);
    private readonly double[] _iterationsPerUs = new double[2];
    private Burn? _burn;
    private ulong _sink;

    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    private delegate ulong Burn(int which, ulong n);

    public IReadOnlyList<NativeTruth> Run(int runs, double runMs)
    {
        _burn = Marshal.GetDelegateForFunctionPointer<Burn>(NativeLibrary.GetExport(NativeLibrary.Load(library), "esp_burn"));
        Calibrate();
        using var marker = new MarkerThread();
        var scope = new RunScope(marker, allThreads: false);
        var result = new List<NativeTruth>();
        for (var run = 0; run < runs; run++)
        {
            var cpu = new double[2];
            scope.Measure(new RunContext("NativeBurn", "calibrate", "native", 2, run, Warmup: run == 0), () => Chunks(runMs, cpu));
            result.Add(new NativeTruth(run, cpu[0], cpu[1]));
        }
        GC.KeepAlive(_sink);
        return result;
    }

    private void Chunks(double runMs, double[] cpu)
    {
        var total = 0.0;
        while (total < runMs)
        {
            var which = _random.NextDouble() < Weights[0] ? 0 : 1;
            var us = 500 + _random.NextDouble() * 2500;
            var n = Math.Max(1, (ulong)(us * _iterationsPerUs[which]));
            var before = NativeThreadInfo.CurrentThreadCpuTime();
            _sink += _burn!(which, n);
            var ms = (NativeThreadInfo.CurrentThreadCpuTime() - before).TotalMilliseconds;
            cpu[which] += ms;
            total += ms;
        }
    }

    /// <summary>Iterations per microsecond of each function: native code runs at one speed from the first call.</summary>
    private void Calibrate()
    {
        for (var which = 0; which < 2; which++)
        {
            const ulong n = 100_000;
            var sw = System.Diagnostics.Stopwatch.StartNew();
            var done = 0UL;
            while (sw.Elapsed.TotalMilliseconds < 20) { _sink += _burn!(which, n); done += n; }
            _iterationsPerUs[which] = done / (sw.Elapsed.TotalMilliseconds * 1000);
        }
    }
}
