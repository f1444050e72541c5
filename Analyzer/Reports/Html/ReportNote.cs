namespace EtwSerializerProfiler.Analyzer.Reports.Html;

/// <summary>
/// One line of the report's "Findings and warnings" section. The analyzer's warnings become notes of kind
/// "warning"; the findings of `esp analyze` (another branch) are meant to map onto kind "finding" with their
/// headline as <see cref="Text"/> and their evidence as <see cref="Detail"/> (docs/report.md).
/// </summary>
/// <param name="Link">An anchor on the page that shows the evidence (a case's call tree), without the '#'.</param>
internal sealed record ReportNote(string Kind, string Text, string? Detail = null, string? Subject = null, string? Link = null);
