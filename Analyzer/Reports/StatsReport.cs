using EtwSerializerProfiler.Analyzer.Export;
using EtwSerializerProfiler.Analyzer.EventBytes;

namespace EtwSerializerProfiler.Analyzer.Reports;

/// <summary>`esp stats`: a trace's byte counts (by block, provider and event) as a report, its tables in every format.</summary>
public static class StatsReport
{
    public static ReportDocument Document(TraceStatistics stats)
    {
        var tables = stats.Tables().ToList();
        return new ReportDocument { Kind = ReportKind.Stats, Parts = [.. tables.Select(t => new TablePart(t))], CsvTables = () => tables };
    }
}
