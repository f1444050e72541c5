using System.Text;

namespace EtwSerializerProfiler.Common;

/// <summary>RFC 4180 CSV: a header line of column names, then one line per row; titles and notes are not data.</summary>
public static class Csv
{
    public static string Table(TextTable table)
    {
        var sb = new StringBuilder();
        sb.AppendLine(string.Join(",", table.Columns.Select(Escape)));
        foreach (var row in table.Rows) sb.AppendLine(string.Join(",", row.Select(Escape)));
        return sb.ToString();
    }

    public static string Escape(string value) =>
        value.AsSpan().IndexOfAny(",\"\n\r") >= 0 ? "\"" + value.Replace("\"", "\"\"", StringComparison.Ordinal) + "\"" : value;
}
