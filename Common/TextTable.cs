using System.Globalization;
using System.Text;

namespace EtwSerializerProfiler.Common;

public enum TableFormat { Text, Csv, Markdown, Json }

/// <summary>A titled grid of already-formatted cells, rendered as an aligned terminal table, CSV or Markdown.</summary>
public sealed class TextTable(string title, IReadOnlyList<string> columns)
{
    private readonly List<string[]> _rows = [];

    public string Title { get; } = title;
    public IReadOnlyList<string> Columns { get; } = columns;
    public IReadOnlyList<string[]> Rows => _rows;
    public List<string> Notes { get; } = [];

    /// <summary>Columns whose cells are right-aligned on a terminal (numbers); inferred from the first row.</summary>
    public void AddRow(params string[] cells)
    {
        if (cells.Length != Columns.Count)
            throw new ArgumentException($"row has {cells.Length} cells, table '{Title}' has {Columns.Count} columns");
        _rows.Add(cells);
    }

    public string Render(TableFormat format) => format switch
    {
        TableFormat.Csv => RenderCsv(),
        TableFormat.Markdown => RenderMarkdown(),
        _ => RenderText(),
    };

    private string RenderText()
    {
        var widths = Columns.Select((c, i) => Math.Max(c.Length, _rows.Count == 0 ? 0 : _rows.Max(r => r[i].Length))).ToArray();
        var numeric = Columns.Select((_, i) => _rows.Count > 0 && _rows.All(r => IsNumeric(r[i]))).ToArray();
        var sb = new StringBuilder();
        sb.AppendLine(Title);
        AppendLine(sb, Columns.ToArray(), widths, numeric);
        sb.AppendLine(string.Join("  ", widths.Select(w => new string('-', w))));
        foreach (var row in _rows) AppendLine(sb, row, widths, numeric);
        foreach (var note in Notes) sb.AppendLine("  " + note);
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

    private static bool IsNumeric(string cell) =>
        cell.Length == 0 || cell == "-" || double.TryParse(cell.TrimEnd('%', 'x'), NumberStyles.Float, CultureInfo.InvariantCulture, out _);

    private string RenderCsv()
    {
        var sb = new StringBuilder();
        sb.AppendLine(string.Join(",", Columns.Select(Csv.Escape)));
        foreach (var row in _rows) sb.AppendLine(string.Join(",", row.Select(Csv.Escape)));
        return sb.ToString();
    }

    private string RenderMarkdown()
    {
        var sb = new StringBuilder();
        sb.AppendLine($"### {Markdown.Escape(Title)}").AppendLine();
        sb.AppendLine("| " + string.Join(" | ", Columns.Select(Markdown.Escape)) + " |");
        sb.AppendLine("|" + string.Join("|", Columns.Select((_, i) => _rows.Count > 0 && _rows.All(r => IsNumeric(r[i])) ? "---:" : "---")) + "|");
        foreach (var row in _rows) sb.AppendLine("| " + string.Join(" | ", row.Select(Markdown.Escape)) + " |");
        foreach (var note in Notes) sb.AppendLine().AppendLine("> " + Markdown.Escape(note));
        return sb.AppendLine().ToString();
    }
}

public static class Csv
{
    public static string Escape(string value) =>
        value.AsSpan().IndexOfAny(",\"\n\r") >= 0 ? "\"" + value.Replace("\"", "\"\"", StringComparison.Ordinal) + "\"" : value;
}

/// <summary>
/// Text for GitHub-flavoured Markdown: method names like List`1[&lt;T&gt;] or __Canon must show as written, not
/// as raw HTML, code spans or bold, and a | must not split a table cell.
/// </summary>
public static class Markdown
{
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

public static class Fmt
{
    public static string Ms(double ms) => ms.ToString(ms >= 100 ? "F1" : ms >= 1 ? "F2" : "F3", CultureInfo.InvariantCulture);
    public static string Num(double v, string format = "F1") => v.ToString(format, CultureInfo.InvariantCulture);
    public static string Pct(double fraction) => (fraction * 100).ToString("F0", CultureInfo.InvariantCulture) + "%";
    public static string Mb(long bytes) => (bytes / (1024.0 * 1024.0)).ToString("F2", CultureInfo.InvariantCulture);
    public static string Int(long v) => v.ToString(CultureInfo.InvariantCulture);
}
