using System.Globalization;

namespace EtwSerializerProfiler.Common;

/// <summary>The values of every command's --format; which exporter writes each is decided in Analyzer/Export/Exporters.cs.</summary>
public enum TableFormat { Text, Csv, Markdown, Json }

/// <summary>
/// A titled grid of already-formatted cells. It holds no format of its own: <see cref="PlainText"/>, <see cref="Csv"/>
/// and <see cref="Markdown"/> render it (the benchmark uses them directly; the esp commands through their exporters).
/// </summary>
public sealed class TextTable(string title, IReadOnlyList<string> columns)
{
    private readonly List<string[]> _rows = [];

    public string Title { get; } = title;
    public IReadOnlyList<string> Columns { get; } = columns;
    public IReadOnlyList<string[]> Rows => _rows;
    public List<string> Notes { get; } = [];

    public void AddRow(params string[] cells)
    {
        if (cells.Length != Columns.Count)
            throw new ArgumentException($"row has {cells.Length} cells, table '{Title}' has {Columns.Count} columns");
        _rows.Add(cells);
    }

    /// <summary>Columns whose cells are all numbers (or empty, or "-") are right-aligned on a terminal and in Markdown.</summary>
    public bool IsNumeric(int column) => _rows.Count > 0 && _rows.All(r => IsNumericCell(r[column]));

    private static bool IsNumericCell(string cell) =>
        cell.Length == 0 || cell == "-" || double.TryParse(cell.TrimEnd('%', 'x'), NumberStyles.Float, CultureInfo.InvariantCulture, out _);
}
