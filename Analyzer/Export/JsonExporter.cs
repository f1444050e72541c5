using System.Text.Json;

namespace EtwSerializerProfiler.Analyzer.Export;

/// <summary>--format json: the report's documented contract, indented.</summary>
internal sealed class JsonExporter : DocumentExporter
{
    public const string FormatName = "json";

    private static readonly JsonSerializerOptions Indented = new() { WriteIndented = true };

    public override string Name => FormatName;

    public override string Render(ReportDocument report) =>
        report.Json is { } json ? json().ToJsonString(Indented) : throw Unsupported(report);
}
