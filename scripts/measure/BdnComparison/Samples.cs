using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Perf.BdnComparison;

/// <summary>One row of the comparison: a serializer doing one operation on one data kind and object count.</summary>
public sealed record CaseKey(string Serializer, string Operation, string Data, int Objects);

/// <summary>
/// One side's per-operation times in ms, kept per launch (process) so the table can show how far launches
/// disagree: on a shared machine a whole process can run 2x slower than the next.
/// </summary>
public sealed class Samples
{
    private readonly Dictionary<CaseKey, List<List<double>>> _byCase = [];

    public IReadOnlyCollection<CaseKey> Keys => _byCase.Keys;

    public IReadOnlyList<IReadOnlyList<double>> Launches(CaseKey key) =>
        _byCase.TryGetValue(key, out var launches) ? launches : [];

    /// <summary>The values one launch measured for one case (a launch appears once per file read).</summary>
    public void AddLaunch(CaseKey key, IReadOnlyList<double> values)
    {
        if (values.Count == 0) return;
        if (!_byCase.TryGetValue(key, out var launches)) _byCase[key] = launches = [];
        launches.Add([.. values]);
    }

    /// <summary>BenchmarkDotNet's Result iterations of each case in one `run` file.</summary>
    public static void AddBdn(Samples into, BdnResults results)
    {
        foreach (var c in results.Cases)
            into.AddLaunch(new CaseKey(c.Serializer, c.Operation, c.Data, c.Objects), c.ResultMs);
    }

    /// <summary>
    /// The runs the benchmark marks as measured (Warmup = false): whatever its warm-up policy, the comparison takes
    /// what its own tables take, per operation (a run may repeat the call; BenchmarkDotNet's values are per call too).
    /// Concurrent runs (--threads) measure something else and are left out.
    /// </summary>
    public static void AddBenchmark(Samples into, BenchmarkResults results)
    {
        var measured = results.Runs
            .Where(r => !r.Warmup && r.Threads == 1 && r.Operation is Selection.Serialize or Selection.Deserialize)
            .GroupBy(r => new CaseKey(r.Serializer, r.Operation, r.Data, r.Objects));
        foreach (var g in measured) into.AddLaunch(g.Key, g.Select(r => r.DurationPerOperationMs).ToList());
    }
}

/// <summary>Pooled statistics of one side of one row.</summary>
public sealed record SideStats(double Mean, double Min, double LaunchMin, double LaunchMax, double Cv, int LaunchCount, int ValueCount)
{
    public static SideStats? Of(IReadOnlyList<IReadOnlyList<double>> launches)
    {
        var all = launches.SelectMany(l => l).ToList();
        if (all.Count == 0) return null;
        var mean = all.Average();
        var sd = all.Count > 1 ? Math.Sqrt(all.Sum(v => (v - mean) * (v - mean)) / (all.Count - 1)) : 0;
        var launchMeans = launches.Select(l => l.Average()).ToList();
        return new SideStats(mean, all.Min(), launchMeans.Min(), launchMeans.Max(), mean > 0 ? sd / mean : 0, launches.Count, all.Count);
    }
}
