using System.ComponentModel;
using System.Reflection;
using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Benchmark.Runs;
using EtwSerializerProfiler.RunMarkers;

namespace EtwSerializerProfiler.Workloads;

/// <summary>One causes run's truth: each part's thread CPU time (GC included), the exceptions thrown and the bytes allocated.</summary>
public sealed record CausesTruth(int Run, bool Warmup, double LookupsMs, double ThrowingMs, double AllocationMs, long Exceptions, long AllocatedBytes);

/// <summary>
/// Three causes a verdict should name, made in known shares (issue 44): custom-attribute lookups (aimed at 50%), a
/// part that throws and catches (36%), and a part that allocates objects which live a while, so gen0 and gen1 GCs
/// copy them (14%). The gap between the last two keeps their order: the allocator's cause also holds the
/// stripped runtime code of the other parts (measured on a quiet machine with 32% and 18%: 23% and 23%, swapped). Chunks of random part and random length (0.5-3 ms, fixed seed), the thread CPU clock read around
/// each, GC included: here the GC is one of the causes. The first three runs are warm-ups.
/// </summary>
public sealed class CausesWorkload
{
    private static readonly double[] Weights = [0.50, 0.36, 0.14];
    private readonly PropertyInfo[] _properties = typeof(AttributesWorkload.Annotated).GetProperties();
    private readonly Random _random = new(20261125);
    private readonly object[] _kept = new object[20_000];
    private int _next;
    private long _sink = 1;

    public IReadOnlyList<CausesTruth> Run(RunScope scope, int runs, double runMs)
    {
        var perUs = new[] { Calibrate(0), Calibrate(1), Calibrate(2) };
        var result = new List<CausesTruth>();
        for (var run = 0; run < runs; run++)
        {
            var cpu = new double[3];
            long exceptions = 0, allocated = 0;
            scope.Measure(new RunContext("Causes", "mixed", "causes", 1, run, Warmup: run < 3), () =>
            {
                var bytes = GC.GetAllocatedBytesForCurrentThread();
                while (cpu[0] + cpu[1] + cpu[2] < runMs)
                {
                    var x = _random.NextDouble();
                    var part = x < Weights[0] ? 0 : x < Weights[0] + Weights[1] ? 1 : 2;
                    var n = Math.Max(1, (int)((500 + _random.NextDouble() * 2500) * perUs[part]));
                    var before = NativeThreadInfo.CurrentThreadCpuTime();
                    RunPart(part, n);
                    var ms = (NativeThreadInfo.CurrentThreadCpuTime() - before).TotalMilliseconds;
                    cpu[part] += ms;
                    if (part == 1) exceptions += n;
                    if (ms > 0) perUs[part] = 0.8 * perUs[part] + 0.2 * (n / (ms * 1000));
                }
                allocated = GC.GetAllocatedBytesForCurrentThread() - bytes;
            });
            result.Add(new CausesTruth(run, run < 3, cpu[0], cpu[1], cpu[2], exceptions, allocated));
        }
        GC.KeepAlive(_sink);
        return result;
    }

    private double Calibrate(int part)
    {
        // Past tier 1 (30 calls, then the tiering delay) for each part and the core library methods under it.
        for (var i = 0; i < 300; i++) RunPart(part, 10);
        Thread.Sleep(200);
        for (var i = 0; i < 100; i++) RunPart(part, 10);
        var start = NativeThreadInfo.CurrentThreadCpuTime();
        var done = 0L;
        while ((NativeThreadInfo.CurrentThreadCpuTime() - start).TotalMilliseconds < 20) { RunPart(part, 20); done += 20; }
        return done / ((NativeThreadInfo.CurrentThreadCpuTime() - start).TotalMilliseconds * 1000);
    }

    private void RunPart(int part, int n)
    {
        switch (part)
        {
            case 0: Lookups(n); break;
            case 1: Throwing(n); break;
            default: Allocating(n); break;
        }
    }

    /// <summary>GetCustomAttribute&lt;T&gt;, as serializers ask per property (AttributesWorkload says why this call).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Lookups(int n)
    {
        for (var i = 0; i < n; i++)
            _sink += _properties[i % _properties.Length].GetCustomAttribute<DescriptionAttribute>(inherit: true)?.Description.Length ?? 0;
    }

    /// <summary>A parse that fails and is caught, as a lenient reader does per bad value.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Throwing(int n)
    {
        for (var i = 0; i < n; i++)
        {
            try { _sink += Parse(i); }
            catch (FormatException) { _sink++; }
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Parse(int i) => throw new FormatException("not a number");

    /// <summary>Objects kept for a while (a ring of 20,000), so each GC finds some alive and copies them.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Allocating(int n)
    {
        for (var i = 0; i < n; i++)
        {
            _kept[_next] = new long[4 + (i & 15)];
            _next = (_next + 1) % _kept.Length;
        }
    }
}
