using System.Globalization;
using System.Text.RegularExpressions;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Perf.BdnComparison;

/// <summary>
/// The side-by-side table: per case, BenchmarkDotNet's mean and this benchmark's mean of measured runs (both per
/// serializer call), their ratio, and each side's spread: the range of launch means and the CV of all values. The
/// minimum is there because on a shared machine it is the figure load disturbs least (a preempted run only grows).
/// </summary>
public static partial class ComparisonTable
{
    public static readonly IReadOnlyList<string> Columns =
    [
        "Serializer", "Operation", "Data", "N",
        "BDN mean ms", "BDN min ms", "BDN launch means ms", "BDN CV", "BDN launches x iterations",
        "Benchmark mean ms", "Benchmark min ms", "Benchmark launch means ms", "Benchmark CV", "Benchmark launches x runs",
        "Benchmark / BDN",
    ];

    public static TextTable Build(IReadOnlyList<BdnResults> bdn, IReadOnlyList<BenchmarkResults> benchmark)
    {
        var bdnSamples = new Samples();
        foreach (var b in bdn) Samples.AddBdn(bdnSamples, b);
        var benchSamples = new Samples();
        foreach (var r in benchmark) Samples.AddBenchmark(benchSamples, r);

        var table = new TextTable("BenchmarkDotNet vs this benchmark (ms per serializer call)", Columns);
        var keys = bdnSamples.Keys.Union(benchSamples.Keys)
            .OrderBy(k => k.Operation, StringComparer.Ordinal).ThenBy(k => k.Data, StringComparer.Ordinal)
            .ThenBy(k => k.Objects).ThenBy(k => k.Serializer, StringComparer.OrdinalIgnoreCase);
        foreach (var key in keys)
        {
            var b = SideStats.Of(bdnSamples.Launches(key));
            var m = SideStats.Of(benchSamples.Launches(key));
            table.AddRow([key.Serializer, key.Operation, key.Data, Fmt.Int(key.Objects), .. Side(b), .. Side(m),
                b is not null && m is not null && b.Mean > 0 ? Ratio(m.Mean / b.Mean) : "-"]);
        }
        AddNotes(table, bdn, benchmark);
        return table;
    }

    private static string[] Side(SideStats? s) => s is null
        ? ["-", "-", "-", "-", "0"]
        : [Fmt.Ms(s.Mean), Fmt.Ms(s.Min), $"{Fmt.Ms(s.LaunchMin)}-{Fmt.Ms(s.LaunchMax)}", Fmt.Pct(s.Cv), Count(s)];

    /// <summary>"3 x 15" when every launch has as many values; the total otherwise (BenchmarkDotNet drops outliers).</summary>
    private static string Count(SideStats s) => s.ValueCount % s.LaunchCount == 0
        ? $"{s.LaunchCount} x {s.ValueCount / s.LaunchCount}"
        : $"{s.LaunchCount} x {Fmt.Num((double)s.ValueCount / s.LaunchCount)} ({s.ValueCount})";

    private static string Ratio(double r) => r.ToString("F2", CultureInfo.InvariantCulture) + "x";

    private static void AddNotes(TextTable table, IReadOnlyList<BdnResults> bdn, IReadOnlyList<BenchmarkResults> benchmark)
    {
        var cases = bdn.SelectMany(b => b.Cases).ToList();
        if (bdn.Count > 0)
        {
            var first = bdn[0];
            var warmups = cases.Count > 0 ? $"{cases.Min(c => c.WarmupIterations)}-{cases.Max(c => c.WarmupIterations)}" : "-";
            var ops = cases.Count > 0 ? $"{cases.Min(c => c.OperationsPerIteration)}-{cases.Max(c => c.OperationsPerIteration)}" : "-";
            table.Notes.Add($"BDN: BenchmarkDotNet {first.BenchmarkDotNetVersion}, {first.Runtime}, toolchain {first.Toolchain}, job {first.Job}; " +
                $"warm-up iterations {warmups}, calls per iteration {ops}; CV over Result iterations (overhead subtracted, upper outliers removed).");
        }
        if (benchmark.Count > 0)
        {
            // Each launch writes its own --json file; without it the launches' command lines are one.
            var commands = benchmark.Select(r => JsonOption().Replace(r.CommandLine, "").Trim()).Distinct(StringComparer.Ordinal).ToList();
            table.Notes.Add($"Benchmark: {benchmark[0].Runtime}, runs marked measured (warmup = false); command: {string.Join(" | ", commands)}.");
        }
        foreach (var e in bdn.SelectMany(b => b.Errors).Distinct(StringComparer.Ordinal)) table.Notes.Add("BDN: " + e);
        foreach (var e in benchmark.SelectMany(b => b.Errors).Distinct(StringComparer.Ordinal)) table.Notes.Add("Benchmark: " + e);
        foreach (var u in benchmark.SelectMany(b => b.Unsupported).Distinct()) table.Notes.Add($"Benchmark: {u.Serializer}: not run: {u.Reason}");
    }

    [GeneratedRegex(@"--json(=|\s+)\S+")]
    private static partial Regex JsonOption();
}
