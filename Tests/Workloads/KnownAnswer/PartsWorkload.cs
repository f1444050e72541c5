using System.Reflection;
using System.Runtime.CompilerServices;
using EtwSerializerProfiler.Benchmark.Runs;
using EtwSerializerProfiler.RunMarkers;

namespace EtwSerializerProfiler.Workloads;

/// <summary>Each part's thread CPU time in one marked run, in milliseconds.</summary>
public sealed record RunTruth(int Run, double ReflectionMs, double ArithmeticMs, double AllocationMs);

/// <summary>
/// Three kinds of work a serializer does, kept apart so their CPU shares can be measured in-process: reflection
/// (FieldInfo.SetValue/GetValue on a string field, nothing boxed), arithmetic (a register-only xorshift loop) and
/// allocation (short-lived arrays, so gen0 GCs happen on this thread, with their page faults and memory clearing). They run in chunks of random part and
/// random length (0.5-3 ms, fixed seed), so a sampler's fixed period cannot fall in step with a fixed cycle; the
/// thread CPU clock is read around every chunk. Shares aimed at: 25% reflection, 45% arithmetic, 30% allocation.
/// </summary>
public sealed class PartsWorkload
{
    private static readonly double[] Weights = [0.25, 0.45, 0.30];
    private static readonly FieldInfo TextField = typeof(Holder).GetField(nameof(Holder.Text))!;
    private readonly Holder _holder = new();
    private readonly Random _random = new(20261122);
    private readonly double[] _iterationsPerUs = new double[3];
    private long _sink;

    public sealed class Holder { public string? Text; }

    public IReadOnlyList<RunTruth> Run(int runs, double runMs)
    {
        Calibrate();
        using var marker = new MarkerThread();
        var scope = new RunScope(marker, allThreads: false);
        var result = new List<RunTruth>();
        for (var run = 0; run < runs; run++)
        {
            var cpu = new double[3];
            // Run 0 is a warm-up (tier-0 code, JIT): the run events say so, and the analyzer leaves it out.
            scope.Measure(new RunContext("KnownAnswer", "calibrate", "parts", 3, run, Warmup: run == 0), () => Chunks(runMs, cpu));
            result.Add(new RunTruth(run, cpu[0], cpu[1], cpu[2]));
        }
        GC.KeepAlive(_sink);
        return result;
    }

    private void Chunks(double runMs, double[] cpu)
    {
        var total = 0.0;
        while (total < runMs)
        {
            var part = Pick();
            // 0.5-3 ms: long enough that the two clock reads around a chunk (system calls, slow on a loaded VM) are a
            // small part of it, random so that no fixed cycle exists for a sampler's fixed period to fall in step with.
            var us = 500 + _random.NextDouble() * 2500;
            var n = Math.Max(1, (int)(us * _iterationsPerUs[part]));
            var before = NativeThreadInfo.CurrentThreadCpuTime();
            RunPart(part, n);
            var ms = (NativeThreadInfo.CurrentThreadCpuTime() - before).TotalMilliseconds;
            cpu[part] += ms;
            total += ms;
            // Follow each part's real speed (tiering, GC and cache effects change it), so the shares stay near the aim.
            if (ms > 0) _iterationsPerUs[part] = 0.8 * _iterationsPerUs[part] + 0.2 * (n / (ms * 1000));
        }
    }

    private int Pick()
    {
        var x = _random.NextDouble();
        return x < Weights[0] ? 0 : x < Weights[0] + Weights[1] ? 1 : 2;
    }

    private void RunPart(int part, int n)
    {
        switch (part)
        {
            case 0: ReflectionPart(n); break;
            case 1: _sink += ArithmeticPart(n, _sink | 1); break;
            default: AllocationPart(n); break;
        }
    }

    /// <summary>Runs each part until tier-1 code runs it, then times iterations per microsecond.</summary>
    private void Calibrate()
    {
        for (var part = 0; part < 3; part++)
        {
            var n = 1000;
            for (var round = 0; round < 40; round++) RunPart(part, n);
            var sw = System.Diagnostics.Stopwatch.StartNew();
            var done = 0L;
            while (sw.Elapsed.TotalMilliseconds < 20) { RunPart(part, n); done += n; }
            _iterationsPerUs[part] = done / (sw.Elapsed.TotalMilliseconds * 1000);
        }
    }

    // Each part is shaped like serializer code: an entry method calls a loop, the loop calls the work. Frame-pointer
    // unwinding can lose any one of them (a leaf or a runtime helper keeps no frame; an OSR loop shows twice and hid
    // the entry once), so KnownAnswerTests tags a part by all its methods, as a user tags a serializer.

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ReflectionPart(int n) => ReflectionLoop(n);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ReflectionLoop(int n)
    {
        var value = "known";
        for (var i = 0; i < n; i++) value = ReflectionStep(value);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private string ReflectionStep(string value)
    {
        TextField.SetValue(_holder, value);
        return (string)TextField.GetValue(_holder)!;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long ArithmeticPart(int n, long x) => ArithmeticLoop(n, x);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long ArithmeticLoop(int n, long x)
    {
        for (var i = 0; i < n; i += 64) x = ArithmeticStep(x);
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long ArithmeticStep(long x)
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
    private void AllocationPart(int n) => _sink += AllocationLoop(n);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long AllocationLoop(int n)
    {
        var total = 0L;
        for (var i = 0; i < n; i++) total += NewArray(i).Length;
        return total;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static byte[] NewArray(int i) => new byte[48 + (i & 127)];
}
