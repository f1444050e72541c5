using System.Runtime.CompilerServices;
using System.Text.Json;

namespace EtwSerializerProfiler.Workloads;

/// <summary>What the app did, counted in-process around the work (GCs by condemned generation, as a trace reports them).</summary>
public sealed record SampleTruth(int ExceptionsThrown, long LockContentions, int Gen0, int Gen1, int Gen2, int JsonRoundTrips);

/// <summary>
/// Three things a whole-trace analysis must find in an app it knows nothing about: serializer work (System.Text.Json,
/// which the serializer-library stack tags recognise), exceptions thrown and caught on a hot path, and threads
/// waiting for one lock.
/// </summary>
public sealed class SampleWork
{
    public sealed record Order(int Id, string Customer, decimal Total, List<string> Lines);

    private readonly object _gate = new();
    private long _shared;

    public SampleTruth Run(int exceptions, int lockThreads)
    {
        var gcBefore = (GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2));
        var contentionBefore = System.Threading.Monitor.LockContentionCount;
        var roundTrips = JsonWork();
        var thrown = Exceptions(exceptions);
        Contend(lockThreads);
        var contentions = System.Threading.Monitor.LockContentionCount - contentionBefore;
        // CollectionCount(n) counts collections of generation n or higher: turned into "condemned generation n".
        var d2 = GC.CollectionCount(2) - gcBefore.Item3;
        var d1 = GC.CollectionCount(1) - gcBefore.Item2 - d2;
        var d0 = GC.CollectionCount(0) - gcBefore.Item1 - d2 - d1;
        return new SampleTruth(thrown, contentions, d0, d1, d2, roundTrips);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int JsonWork()
    {
        var orders = Enumerable.Range(0, 2000).Select(i => new Order(i, "customer " + i, i * 1.25m, [.. Enumerable.Range(0, 5).Select(j => $"line {j}")])).ToList();
        var n = 0;
        for (; n < 150; n++)
        {
            var json = JsonSerializer.SerializeToUtf8Bytes(orders);
            orders = JsonSerializer.Deserialize<List<Order>>(json)!;
        }
        return n;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Exceptions(int count)
    {
        var thrown = 0;
        for (var i = 0; i < count; i++)
        {
            try { Parse("not a number " + i); }
            catch (FormatException) { thrown++; }
        }
        return thrown;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Parse(string text) => int.Parse(text, System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>Threads that each take one lock many times and hold it while they work: they wait for each other.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Contend(int threads)
    {
        using var start = new ManualResetEventSlim(false);
        var workers = Enumerable.Range(0, threads).Select(_ => new Thread(() =>
        {
            start.Wait();
            for (var i = 0; i < 40; i++)
            {
                lock (_gate)
                {
                    // Holding the lock across a short sleep makes every other thread that wants it block, not spin.
                    _shared++;
                    Thread.Sleep(1);
                }
            }
        }) { Name = "Lock worker" }).ToList();
        workers.ForEach(t => t.Start());
        start.Set();
        workers.ForEach(t => t.Join());
    }
}
