using System.Text;

namespace EtwSerializerProfiler.Common;

/// <summary>
/// GitHub-flavoured Markdown. Text is escaped so that method names like List`1[&lt;T&gt;] or __Canon show as written,
/// not as raw HTML, code spans or bold, and a | does not split a table cell.
/// </summary>
public static class Markdown
{
    /// <summary>"### title", the table (numeric columns right-aligned), notes as quotes, and a blank line.</summary>
    public static string Table(TextTable table)
    {
        var sb = new StringBuilder();
        sb.AppendLine($"### {Escape(table.Title)}").AppendLine();
        sb.AppendLine("| " + string.Join(" | ", table.Columns.Select(Escape)) + " |");
        sb.AppendLine("|" + string.Join("|", table.Columns.Select((_, i) => table.IsNumeric(i) ? "---:" : "---")) + "|");
        foreach (var row in table.Rows) sb.AppendLine("| " + string.Join(" | ", row.Select(Escape)) + " |");
        foreach (var note in table.Notes) sb.AppendLine().AppendLine("> " + Escape(note));
        return sb.AppendLine().ToString();
    }

    public static string Escape(string text)
    {
        var sb = new StringBuilder(text.Length + 8);
        foreach (var c in text)
        {
            if (c is '\\' or '`' or '*' or '_' or '[' or ']' or '|' or '#') sb.Append('\\').Append(c);
            else if (c == '<') sb.Append("&lt;");
            else if (c == '>') sb.Append("&gt;");
            else if (c is '\n' or '\r') sb.Append(' ');
            else sb.Append(c);
        }
        return sb.ToString();
    }
}
