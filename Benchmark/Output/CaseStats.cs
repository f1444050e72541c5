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

/// <summary>
/// The Rank column. Rows of one operation and N, sorted by mean, are numbered; a row whose min-max range overlaps the
/// previous or the next row's gets "~": some measured run of one was as fast as some run of the other, so their order
/// could flip on the next launch. A row with a single measured run has no spread to judge and gets "?".
/// </summary>
public static class Ranking
{
    public static IReadOnlyList<(CaseStats Case, string Rank)> Rank(IReadOnlyList<CaseStats> byMean)
    {
        var ranked = new List<(CaseStats, string)>(byMean.Count);
        for (var i = 0; i < byMean.Count; i++)
        {
            var c = byMean[i];
            var number = Fmt.Int(i + 1);
            if (byMean.Count == 1) { ranked.Add((c, number)); continue; }
            if (c.Measured.Count < 2) { ranked.Add((c, number + "?")); continue; }
            var overlaps = (i > 0 && Overlap(byMean[i - 1], c)) || (i + 1 < byMean.Count && Overlap(c, byMean[i + 1]));
            ranked.Add((c, overlaps ? number + "~" : number));
        }
        return ranked;
    }

    /// <summary>Whether two cases' min-max ranges of time per operation overlap (<paramref name="faster"/> has the lower mean).</summary>
    public static bool Overlap(CaseStats faster, CaseStats slower) => slower.MinMs <= faster.MaxMs;
}
