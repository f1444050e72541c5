using System.Text;

namespace EtwSerializerProfiler.Common;

/// <summary>A <see cref="TextTable"/> as an aligned terminal table: title, header, dashes, rows, indented notes.</summary>
public static class PlainText
{
    /// <summary>The terminal's width every compact report and help text keeps within.</summary>
    public const int Width = 120;

    public static string Table(TextTable table)
    {
        var rows = table.Rows;
        var widths = table.Columns.Select((c, i) => Math.Max(c.Length, rows.Count == 0 ? 0 : rows.Max(r => r[i].Length))).ToArray();
        var numeric = table.Columns.Select((_, i) => table.IsNumeric(i)).ToArray();
        var sb = new StringBuilder();
        sb.AppendLine(table.Title);
        AppendLine(sb, [.. table.Columns], widths, numeric);
        sb.AppendLine(string.Join("  ", widths.Select(w => new string('-', w))));
        foreach (var row in rows) AppendLine(sb, row, widths, numeric);
        foreach (var note in table.Notes) sb.AppendLine("  " + note);
        return sb.ToString();
    }

    private static void AppendLine(StringBuilder sb, string[] cells, int[] widths, bool[] numeric)
    {
        for (var i = 0; i < cells.Length; i++)
        {
            if (i > 0) sb.Append("  ");
            sb.Append(numeric[i] ? cells[i].PadLeft(widths[i]) : cells[i].PadRight(widths[i]));
        }
        sb.Length = sb.ToString().TrimEnd().Length;
        sb.AppendLine();
    }
}
