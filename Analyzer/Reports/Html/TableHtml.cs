using System.Globalization;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports.Html;

/// <summary>
/// A <see cref="TextTable"/> as an HTML table: the same titles, columns and formatted cells as the terminal and
/// Markdown output, so numbers in the report always match what `esp analyze` prints.
/// </summary>
internal static class TableHtml
{
    public static void Write(HtmlWriter html, TextTable table)
    {
        var numeric = table.Columns.Select((_, i) => table.Rows.Count > 0 && table.Rows.All(r => IsNumeric(r[i]))).ToArray();
        using (html.Block("div", ("class", "table-scroll")))
        using (html.Block("table", ("class", "data")))
        {
            html.Element("caption", table.Title);
            using (html.Block("thead"))
            using (html.Block("tr"))
                foreach (var c in table.Columns) html.Element("th", c, ("scope", "col"));
            using (html.Block("tbody"))
                foreach (var row in table.Rows)
                    using (html.Block("tr"))
                        for (var i = 0; i < row.Length; i++)
                            html.Element("td", row[i], ("class", numeric[i] ? "num" : null));
        }
        foreach (var note in table.Notes) html.Element("p", note, ("class", "caption"));
        html.Line();
    }

    private static bool IsNumeric(string cell) =>
        cell.Length == 0 || cell == "-" || double.TryParse(cell.Split(' ')[0].TrimEnd('%', 'x'), NumberStyles.Float, CultureInfo.InvariantCulture, out _);
}
