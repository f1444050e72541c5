using System.Reflection;
using System.Text.Json;
using EtwSerializerProfiler.Benchmark.Runs;
using EtwSerializerProfiler.RunMarkers;

namespace EtwSerializerProfiler.Workloads;

/// <summary>Marks a method the harness runs, as BenchmarkDotNet's [Benchmark] does.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class BenchAttribute : Attribute;

/// <summary>
/// A harness shaped like BenchmarkDotNet's: it finds its benchmark methods by attribute and calls each through
/// MethodInfo.Invoke, so reflection sits at the root of every stack of the measured work. The work itself
/// (System.Text.Json writing and reading a small graph) does no reflection once warm: no reflection finding is true.
/// </summary>
public sealed class HarnessWorkload
{
    public sealed record Item(int Id, string Name, double[] Values);

    private readonly Item[] _items = [.. Enumerable.Range(0, 200).Select(i => new Item(i, "item " + i, [i, i * 0.5, i * 0.25]))];

    [Bench]
    public int JsonRoundTrip()
    {
        var total = 0;
        for (var i = 0; i < 20; i++)
        {
            var json = JsonSerializer.SerializeToUtf8Bytes(_items);
            total += JsonSerializer.Deserialize<Item[]>(json)!.Length;
        }
        return total;
    }

    /// <summary>The first two runs of each method are warm-ups: JIT, tiering, and System.Text.Json building its metadata by reflection once.</summary>
    public void Run(RunScope scope, int runs, double runMs)
    {
        var benchmarks = GetType().GetMethods().Where(m => m.GetCustomAttribute<BenchAttribute>() is not null).ToList();
        foreach (var method in benchmarks)
        {
            for (var run = 0; run < runs; run++)
            {
                scope.Measure(new RunContext("Harness", "benchmark", method.Name, 1, run, Warmup: run < 2), () =>
                {
                    // Thread CPU time, not wall time: a busy machine then stretches the run instead of thinning its samples.
                    var start = NativeThreadInfo.CurrentThreadCpuTime();
                    while ((NativeThreadInfo.CurrentThreadCpuTime() - start).TotalMilliseconds < runMs) method.Invoke(this, null);
                });
            }
        }
    }
}
