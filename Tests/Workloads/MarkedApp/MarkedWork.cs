using System.Runtime.CompilerServices;
using System.Text.Json;
using EtwSerializerProfiler.RunMarkers;

namespace EtwSerializerProfiler.Workloads;

/// <summary>One run as the app measured it: the truth `esp analyze` of the app's trace is held to.</summary>
public sealed record MarkedRunTruth(string Name, string Operation, int N, int Run, bool Warmup, int Operations,
    double DurationMs, double OuterDurationMs, double CpuMs, long? AllocatedBytes);

/// <summary>
/// Three cases of known work, each marked run by run with the library, the two ways it offers:
/// <list type="bullet">
/// <item>Orders/serialize: System.Text.Json over N orders, several calls per run (MarkedRuns.Measure, a lambda).</item>
/// <item>Primes/sieve: an operation of the app's own, CPU only (MarkedRuns.Start and Stop around a span).</item>
/// <item>Throttled/poll: a little CPU, then sleeps: CPU far below the wall time, so the two cannot be confused.</item>
/// </list>
/// The first runs of each case are warm-ups (tier-0 code, JIT): marked so, and left out of the analyzer's means.
/// </summary>
public sealed class MarkedWork
{
    public sealed record Order(int Id, string Customer, decimal Total, List<string> Lines);

    private readonly List<MarkedRunTruth> _truth = [];
    private long _sink;

    public IReadOnlyList<MarkedRunTruth> Run(int runs, int warmups, int longRunMs = 0)
    {
        if (longRunMs > 0)
            using (var run = MarkedRuns.Start("Long", "wait", 0, warmup: false))
            {
                Console.WriteLine("long run started");
                Console.Out.Flush();
                Thread.Sleep(longRunMs);
                Add(run.Stop());
            }
        var orders = Enumerable.Range(0, 500).Select(i => new Order(i, "customer " + i, i * 1.25m, [.. Enumerable.Range(0, 5).Select(j => $"line {j}")])).ToList();
        var sieve = new bool[2_000_000];
        for (var i = 0; i < runs; i++)
        {
            var warmup = i < warmups;
            // The body is the measured work and nothing else: the input is made before the call.
            Add(MarkedRuns.Measure("Orders", "serialize", orders.Count, () => SerializeOrders(orders, 40), warmup, operations: 40));

            using (var run = MarkedRuns.Start("Primes", "sieve", sieve.Length, warmup))
            {
                _sink += Sieve(sieve.AsSpan());
                Add(run.Stop());
            }

            Add(MarkedRuns.Measure("Throttled", "poll", 0, Poll, warmup, operations: 4));
        }
        GC.KeepAlive(_sink);
        return _truth;
    }

    private void Add(RunTiming t) =>
        _truth.Add(new MarkedRunTruth(t.Info.Name, t.Info.Operation, t.Info.N, t.Run, t.Info.Warmup, t.Info.Operations, t.DurationMs, t.OuterDurationMs, t.CpuMs, t.AllocatedBytes));

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void SerializeOrders(List<Order> orders, int calls)
    {
        for (var i = 0; i < calls; i++) _sink += JsonSerializer.SerializeToUtf8Bytes(orders).Length;
    }

    /// <summary>Sieve of Eratosthenes over the span, six times: some 25 ms of one core, no allocation.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Sieve(Span<bool> composite)
    {
        var primes = 0;
        for (var pass = 0; pass < 6; pass++)
        {
            composite.Clear();
            primes = 0;
            for (var i = 2; i < composite.Length; i++)
            {
                if (composite[i]) continue;
                primes++;
                for (long j = (long)i * i; j < composite.Length; j += i) composite[(int)j] = true;
            }
        }
        return primes;
    }

    /// <summary>Four polls: a short spin of work, then a 10 ms sleep each (a timer's wait, off the CPU).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Poll()
    {
        for (var i = 0; i < 4; i++)
        {
            var x = (ulong)i + 1;
            for (var j = 0; j < 2_000_000; j++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; }
            _sink += (long)(x & 1);
            Thread.Sleep(10);
        }
    }
}
