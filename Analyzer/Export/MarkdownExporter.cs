using System.Text;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Export;

/// <summary>--format markdown: a "##" heading, "###" tables (every detail table too), notes and findings as bullets.</summary>
internal sealed class MarkdownExporter : DocumentExporter
{
    public const string FormatName = "markdown";

    public override string Name => FormatName;

    public override string Render(ReportDocument report)
    {
        var sb = new StringBuilder();
        if (report.Heading is { } heading) sb.AppendLine($"## {Markdown.Escape(heading)}").AppendLine();
        foreach (var part in report.Parts)
        {
            switch (part)
            {
                case TablePart t:
                    sb.Append(Markdown.Table(t.Table));
                    if (t.BlankLineAfter) sb.AppendLine();
                    break;
                case LinesPart l:
                    foreach (var line in l.Lines) sb.AppendLine("- " + (l.EscapeMarkdown ? Markdown.Escape(line) : line));
                    sb.AppendLine();
                    break;
                case ListPart list:
                    // Escaped as lines are: a finding names frames (List`1, Reflection\Type queries, b__4).
                    sb.AppendLine("### " + Markdown.Escape(list.Title.TrimEnd(':')));
                    foreach (var item in list.Items) sb.Append("- ").AppendLine(Markdown.Escape(item));
                    break;
            }
        }
        return sb.ToString();
    }
}
