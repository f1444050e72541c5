using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Output;

/// <summary>
/// One (serializer, operation, N) as the table shows it: its measured runs reduced to values per operation. Every
/// measured run of a case has the same operations per run; the warm-up runs are counted and otherwise left out.
/// Results without warm-up flags on any run (a single run, or firstcall) count all their runs as measured.
/// </summary>
public sealed record CaseStats(string Serializer, string Operation, int Objects, RunResult First, IReadOnlyList<RunResult> Measured, int WarmupRuns)
{
    public static CaseStats Of(IReadOnlyList<RunResult> runs)
    {
        var measured = runs.Where(r => !r.Warmup).ToList();
        if (measured.Count == 0) measured = [.. runs]; // --runs 0 does not exist; a results file of warm-ups only is shown as measured
        return new(runs[0].Serializer, runs[0].Operation, runs[0].Objects, runs[0], measured, runs.Count(r => r.Warmup));
    }

    public int Operations => Measured[0].Operations;
    public double MeanMs => Measured.Average(r => r.DurationPerOperationMs);
    public double MinMs => Measured.Min(r => r.DurationPerOperationMs);
    public double MaxMs => Measured.Max(r => r.DurationPerOperationMs);

    /// <summary>Sample standard deviation / mean of the time per operation over the measured runs.</summary>
    public double Cv
    {
        get
        {
            if (Measured.Count < 2 || MeanMs <= 0) return 0;
            var mean = MeanMs;
            var variance = Measured.Sum(r => (r.DurationPerOperationMs - mean) * (r.DurationPerOperationMs - mean)) / (Measured.Count - 1);
            return Math.Sqrt(variance) / mean;
        }
    }

    /// <summary>A per-run counter averaged over the measured runs and divided by the operations per run.</summary>
    public double PerOperation(Func<RunResult, double> perRun) => Measured.Average(r => perRun(r) / Math.Max(1, r.Operations));

    /// <summary>Collections by condemned generation per 1,000 operations (BenchmarkDotNet's convention), over all measured runs.</summary>
    public (double Gen0, double Gen1, double Gen2) GcsPerThousand
    {
        get
        {
            var ops = Measured.Sum(r => (double)Math.Max(1, r.Operations));
            return (1000 * Measured.Sum(r => r.GcCount.Gen0) / ops, 1000 * Measured.Sum(r => r.GcCount.Gen1) / ops, 1000 * Measured.Sum(r => r.GcCount.Gen2) / ops);
        }
    }
}

/// <summary>The Rank column: Common.RankRule on the cases' time per operation.</summary>
public static class Ranking
{
    public static IReadOnlyList<(CaseStats Case, string Rank)> Rank(IReadOnlyList<CaseStats> byMean) =>
        [.. byMean.Zip(RankRule.Rank([.. byMean.Select(c => (c.MinMs, c.MaxMs, c.Measured.Count, RankRule.IsFailedRoundTrip(c.First.Verification)))]), (c, rank) => (c, rank))];

    /// <summary>Whether two cases' min-max ranges of time per operation overlap (<paramref name="faster"/> has the lower mean).</summary>
    public static bool Overlap(CaseStats faster, CaseStats slower) => RankRule.Overlap((faster.MinMs, faster.MaxMs, 0), (slower.MinMs, slower.MaxMs, 0));
}
