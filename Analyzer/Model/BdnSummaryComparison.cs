using System.Globalization;

namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// One BenchmarkDotNet benchmark's traced mean per operation against its summary's Mean (read by
/// <see cref="Harness.BdnSummaryReader"/> from the report beside the trace).
/// </summary>
internal sealed record BdnSummaryComparison(string Serializer, string Operation, int Objects, double TracedMs, double SummaryMs)
{
    public double Percent => 100 * (TracedMs / SummaryMs - 1);

    public string Line() => string.Create(CultureInfo.InvariantCulture,
        $"BenchmarkDotNet {Operation}.{Serializer}{(Objects > 0 ? $" N={Objects:N0}" : "")}: the traced run {TracedMs:G4} ms per operation, its summary {SummaryMs:G4} ms ({Common.Fmt.Signed(Percent)}%){(Math.Abs(Percent) > 5 ? ": the trace is of a slower run than the summary's (a profiler's extra run is slowed by tracing)" : "")}");
}
