using System.Text.RegularExpressions;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.EndToEnd;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>`--format markdown` as it lands in a GitHub pull request: tables that render, no raw HTML, the tag breakdown.</summary>
[EndToEnd]
[Collection(RecordedBenchmarkCollection.Name)]
public sealed partial class MarkdownReportTests(RecordedBenchmark recorded)
{
    private string Markdown => AnalysisReport.Render(recorded.Analysis, TableFormat.Markdown, top: 10);

    [Fact]
    public void Markdown_has_the_stack_tag_breakdown_per_serializer_and_operation()
    {
        foreach (var op in new[] { "serialize", "deserialize" })
        {
            var table = Tables(Markdown).Single(t => t.Heading.StartsWith($"### {op}: where the time goes", StringComparison.Ordinal));
            // The fixed groups first; groups only kernel stacks show (native runtime, kernel) before Other; then the
            // share of the time whose innermost frame has no name and the part of it the trace's events do not explain;
            // then the run's time off the CPU, which only a kernel
            // session measures.
            var header = Cells(table.Rows[0]);
            Assert.Equal(["Serializer", "N", "On-CPU ms", "Serializer code", "Reflection", "Activator", "GC", "JIT"], header.Take(8));
            Assert.Equal(["Other", "Unnamed", "Unexplained", "Off-CPU ms", "Off-CPU reasons"], header.TakeLast(5));
            Assert.Contains("Native runtime", header);
            foreach (var s in RecordedBenchmark.Serializers) Assert.Contains(table.Rows.Skip(2), r => Cells(r)[0] == s);
        }
    }

    [Fact]
    public void Every_markdown_table_is_well_formed_and_there_is_no_raw_html()
    {
        var md = Markdown;
        var tables = Tables(md);
        Assert.True(tables.Count >= 4, $"{tables.Count} tables");
        foreach (var t in tables)
        {
            // GitHub renders a table only with a header, a delimiter row and a blank line before it; every row needs
            // the header's number of cells.
            Assert.Matches(DelimiterRow(), t.Rows[1]);
            var columns = Cells(t.Rows[0]).Count;
            foreach (var row in t.Rows) Assert.True(Cells(row).Count == columns, $"{t.Heading}: row has {Cells(row).Count} cells, header {columns}: {row}");
        }
        // Method names such as List`1[System.__Canon] or <Main>$ must not turn into HTML tags, code spans or bold text.
        Assert.DoesNotMatch(RawHtml(), md);
        // With every method listed, the benchmark runner's lambda (BenchmarkRunner+<>c__DisplayClass...<BuildCases>b__1,
        // on every run's stack) is always in the hot-method tables; in the top 10 it is only when fewer than 10
        // methods had exclusive samples, which a busy machine changes.
        var all = AnalysisReport.Render(recorded.Analysis, TableFormat.Markdown, top: 10_000);
        Assert.DoesNotMatch(RawHtml(), all);
        Assert.Contains("&lt;BuildCases&gt;", all, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("List`1[System.__Canon]", "List\\`1\\[System.\\_\\_Canon\\]")]
    [InlineData("Program.<Main>$", "Program.&lt;Main&gt;$")]
    [InlineData("a|b", "a\\|b")]
    [InlineData("Serialize\\X", "Serialize\\\\X")]
    public void Markdown_escaping_keeps_text_as_written(string text, string escaped) => Assert.Equal(escaped, EtwSerializerProfiler.Common.Markdown.Escape(text));

    private sealed record MdTable(string Heading, List<string> Rows);

    private static List<MdTable> Tables(string md)
    {
        var lines = md.Split('\n').Select(l => l.TrimEnd('\r')).ToList();
        var tables = new List<MdTable>();
        for (var i = 0; i < lines.Count; i++)
        {
            if (!lines[i].StartsWith('|') || (i > 0 && lines[i - 1].StartsWith('|'))) continue;
            Assert.True(i > 0 && lines[i - 1].Length == 0, $"table at line {i + 1} does not follow a blank line");
            var heading = lines.Take(i).LastOrDefault(l => l.StartsWith('#')) ?? "";
            var rows = lines.Skip(i).TakeWhile(l => l.StartsWith('|')).ToList();
            tables.Add(new MdTable(heading, rows));
        }
        return tables;
    }

    /// <summary>Cells of a table row, splitting on | that is not escaped.</summary>
    private static List<string> Cells(string row) =>
        [.. CellSplit().Split(row.Trim().Trim('|')).Select(c => c.Trim())];

    [GeneratedRegex(@"(?<!\\)\|")]
    private static partial Regex CellSplit();

    [GeneratedRegex(@"^\|(-{3,}:?\|)+$")]
    private static partial Regex DelimiterRow();

    [GeneratedRegex(@"<[A-Za-z/!?]")]
    private static partial Regex RawHtml();
}
