using System.Text;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Export;

/// <summary>--format text (the default): aligned tables, notes as lines, findings indented under their title.</summary>
internal sealed class TextExporter : DocumentExporter
{
    public const string FormatName = "text";

    public override string Name => FormatName;

    public override string Render(ReportDocument report)
    {
        var sb = new StringBuilder();
        foreach (var part in report.Parts)
        {
            switch (part)
            {
                case TablePart { Detail: true }:
                    break;
                case TablePart t:
                    sb.Append(PlainText.Table(t.Table));
                    if (t.BlankLineAfter) sb.AppendLine();
                    break;
                case LinesPart l:
                    foreach (var line in l.Lines) sb.AppendLine(line);
                    sb.AppendLine();
                    break;
                case ListPart list:
                    sb.AppendLine(list.Title);
                    foreach (var item in list.Items) sb.Append("  ").AppendLine(item);
                    break;
            }
        }
        return sb.ToString();
    }
}
