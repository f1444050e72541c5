using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Export;

/// <summary>--format csv: the report's machine-readable table(s), not the terminal's; several are separated by a blank line.</summary>
public sealed class CsvExporter : DocumentExporter
{
    public const string FormatName = "csv";

    public override string Name => FormatName;

    public override string Render(ReportDocument report) =>
        report.CsvTables.Count == 0 ? throw Unsupported(report) : string.Join(Environment.NewLine, report.CsvTables.Select(Csv.Table));
}
