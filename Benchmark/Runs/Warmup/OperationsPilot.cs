using System.Runtime.CompilerServices;
namespace EtwSerializerProfiler.Benchmark.Runs.Warmup;

/// <summary>
/// Operations per run (BenchmarkDotNet's pilot stage, done during the warm-up): a short operation is repeated inside
/// one run until the run lasts about the target, so the run can be timed and sampled. The first run does one
/// operation; each later one is sized from the median time per operation of the last three runs (one run slowed by a
/// background compile or a busy machine does not move it), and the count changes only when it misses the target by
/// more than half, so it settles instead of chasing noise. The measured runs keep the count the warm-up ended with.
/// </summary>
public sealed class OperationsPilot(TimeSpan target, int? fixedOperations)
{
    public const int MaxOperations = 1_000_000;
    // The last three times per operation (a ring); no collections that grow, no LINQ: this runs after every run.
    private readonly double[] _recent = new double[3];
    private int _seen;

    public int Current { get; private set; } = fixedOperations ?? 1;

    /// <summary>After a run that did <see cref="Current"/> operations at <paramref name="perOperationMs"/> each: the count for the next one.</summary>
    [MethodImpl(HarnessCode.Optimized)]
    public int Next(double perOperationMs)
    {
        if (fixedOperations is not null) return Current;
        _recent[_seen++ % 3] = perOperationMs;
        var median = _seen switch
        {
            1 => _recent[0],
            2 => Math.Max(_recent[0], _recent[1]), // of two, the slower: the pilot must not overshoot on one lucky run
            _ => Math.Max(Math.Min(_recent[0], _recent[1]), Math.Min(Math.Max(_recent[0], _recent[1]), _recent[2])),
        };
        var wanted = median <= 0 ? MaxOperations : (int)Math.Clamp(Math.Ceiling(target.TotalMilliseconds / median), 1, MaxOperations);
        if (wanted > Current * 1.5 || wanted < Current / 1.5) Current = wanted;
        return Current;
    }
}
