using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports;

/// <summary>`esp analyze --tables`: what a report shows. The terminal's default is compact; documents and data formats show all.</summary>
public enum ReportTables
{
    /// <summary>Verdicts, one short table per operation, the notes and the findings: fits a 120-column terminal.</summary>
    Compact,
    /// <summary>Verdicts, then every table: the wide per-operation tables, where the time goes, the kernel session's.</summary>
    All,
}

/// <summary>The one rule for a report without --tables.</summary>
public static class ReportTablesDefault
{
    /// <summary>Compact on text (the terminal's), all in every other format.</summary>
    public static ReportTables For(TableFormat format) => format == TableFormat.Text ? ReportTables.Compact : ReportTables.All;
}
