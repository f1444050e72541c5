using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Export;

/// <summary>
/// --format csv: the report's machine-readable table(s), not the terminal's. One table is the whole output; several
/// (esp stats) are each followed by a blank line, as esp always wrote them.
/// </summary>
internal sealed class CsvExporter : DocumentExporter
{
    public const string FormatName = "csv";

    public override string Name => FormatName;

    public override string Render(ReportDocument report) =>
        report.CsvTables() switch
        {
            [] => throw Unsupported(report),
            [var one] => Csv.Table(one),
            var tables => string.Concat(tables.Select(t => Csv.Table(t) + Environment.NewLine)),
        };
}
