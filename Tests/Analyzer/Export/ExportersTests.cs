using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using AngleSharp.Html.Parser;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Analyzer.Export;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Analyzer.Reports.Html;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Analyzer;
using EtwSerializerProfiler.Tests.Analyzer.Diff;
using EtwSerializerProfiler.Tests.EndToEnd;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Export;

/// <summary>
/// Every exporter (Analyzer/Export) writes its format well-formed, checked by reading the output back with that
/// format's own rules (a CSV reader, a JSON parser, Markdown table shape, a strict HTML parser), not by comparing
/// with what the exporter was meant to write. The formats come from Exporters.All, so a new one needs a check here.
/// </summary>
[EndToEnd]
[Collection(RecordedBenchmarkCollection.Name)]
public sealed partial class ExportersTests(RecordedBenchmark recorded)
{
    internal static readonly Dictionary<string, Action<ReportDocument, string>> Checks = new()
    {
        [TextExporter.FormatName] = (report, path) => CheckText(report, File.ReadAllText(path)),
        [CsvExporter.FormatName] = (report, path) => CheckCsv(report, File.ReadAllText(path)),
        [JsonExporter.FormatName] = (_, path) => CheckJson(File.ReadAllText(path)),
        [MarkdownExporter.FormatName] = (report, path) => CheckMarkdown(report, File.ReadAllText(path)),
        [HtmlExporter.FormatName] = (_, path) => CheckHtml(path),
        [SpeedscopeExporter.FormatName] = CheckSpeedscope,
        [FirefoxExporter.FormatName] = (_, path) => CheckFirefox(path),
    };

    [Fact]
    public void Every_exporter_writes_a_real_analysis_well_formed()
    {
        var stacks = RunStackCollector.Collect(recorded.Analysis);
        var report = AnalysisReport.Document(recorded.Analysis, top: 5, stacks);
        // The analysis has every format: each exporter is exercised on it.
        Assert.All(Exporters.All, e => Assert.True(ReportKind.Analysis.Has(e), e.Name));
        ExportAndCheck(report, Exporters.All);
    }

    [Fact]
    public void Every_exporter_of_the_diff_writes_the_golden_pair_well_formed()
    {
        var report = DiffReport.Document(DiffGoldenRecording.Diff());
        ExportAndCheck(report, [.. Exporters.All.Where(ReportKind.Diff.Has)]);
    }

    [Theory]
    [InlineData(TableFormat.Text)]
    [InlineData(TableFormat.Csv)]
    [InlineData(TableFormat.Markdown)]
    public void Cells_that_look_like_syntax_stay_data(TableFormat format)
    {
        // Commas, quotes and line breaks for CSV (the terminal's table has no multi-line cells); pipes, generics and
        // underscores for Markdown.
        var table = new TextTable("List`1[<T>] | __Canon", ["name", "value, \"quoted\""]);
        table.AddRow("a,b", "1");
        table.AddRow(format == TableFormat.Csv ? "say \"hi\"\r\nthere" : "say \"hi\"", "2");
        table.AddRow("x | y", "3");
        table.AddRow("__Canon*", "4");
        var report = new ReportDocument { Kind = ReportKind.Stats, Parts = [new TablePart(table)], CsvTables = () => [table] };
        var dir = Repo.NewTempDir("export-cells");
        try
        {
            var exporter = Exporters.ForFormat(format);
            var path = Path.Combine(dir, "out");
            exporter.Export(report, TextWriter.Null, path, new Progress<string>());
            Checks[exporter.Name](report, path);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public void Without_a_path_a_format_goes_to_the_terminal_and_a_file_says_where_it_went()
    {
        var report = DiffReport.Document(DiffGoldenRecording.Diff());
        var terminal = new StringWriter();
        var lines = new List<string>();
        Exporters.ForFormat(TableFormat.Json).Export(report, terminal, null, new LineCollector(lines));
        CheckJson(terminal.ToString());
        Assert.Empty(lines);

        var dir = Repo.NewTempDir("export-out");
        try
        {
            var path = Path.Combine(dir, "sub", "diff.json");
            terminal = new StringWriter();
            Exporters.ForFormat(TableFormat.Json).Export(report, terminal, path, new LineCollector(lines));
            Assert.Empty(terminal.ToString());
            Assert.Equal([$"wrote {path}"], lines);
            CheckJson(File.ReadAllText(path));
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    private static void ExportAndCheck(ReportDocument report, IReadOnlyList<IExporter> exporters)
    {
        var dir = Repo.NewTempDir("export");
        try
        {
            foreach (var exporter in exporters)
            {
                var path = Path.Combine(dir, exporter.Target == ExportTarget.Folder ? exporter.Name : $"report.{exporter.Name}");
                var lines = new List<string>();
                exporter.Export(report, TextWriter.Null, path, new LineCollector(lines));
                Assert.Single(lines);
                Checks[exporter.Name](report, path);
            }
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    /// <summary>Each table the terminal shows: its title, a header, a dash line with a dash run per column, rows no wider.</summary>
    private static void CheckText(ReportDocument report, string text)
    {
        var lines = text.Split('\n').Select(l => l.TrimEnd('\r')).ToList();
        var at = 0;
        foreach (var table in report.Parts.OfType<TablePart>().Where(t => !t.Detail).Select(t => t.Table))
        {
            at = lines.IndexOf(table.Title, at);
            Assert.True(at >= 0, $"table '{table.Title}' missing");
            var dashes = lines[at + 2];
            Assert.Matches(@"^-+(  -+)*$", dashes);
            Assert.Equal(table.Columns.Count, dashes.Split("  ").Length);
            for (var row = 0; row < table.Rows.Count; row++) Assert.True(lines[at + 3 + row].Length <= dashes.Length, $"'{table.Title}' row {row} is wider than its columns");
            at += 3 + table.Rows.Count;
        }
        foreach (var list in report.Parts.OfType<ListPart>()) Assert.Contains(list.Title, lines);
    }

    /// <summary>Read back with an RFC 4180 reader: the header and every cell as the table has them, separated by blank lines.</summary>
    private static void CheckCsv(ReportDocument report, string csv)
    {
        var blocks = SplitRecords(csv);
        var tables = report.CsvTables();
        Assert.Equal(tables.Count, blocks.Count);
        foreach (var (table, records) in tables.Zip(blocks))
        {
            Assert.Equal(table.Columns, records[0]);
            Assert.Equal(table.Rows.Select(r => (IReadOnlyList<string>)r), records.Skip(1));
        }
    }

    private static void CheckJson(string json)
    {
        using var doc = JsonDocument.Parse(json);
        Assert.Equal(JsonValueKind.Object, doc.RootElement.ValueKind);
        Assert.Equal(JsonValueKind.Number, doc.RootElement.GetProperty("schemaVersion").ValueKind);
    }

    /// <summary>
    /// A "## " heading; every table a "### " heading and rows with as many cells as its header, under a "---" row;
    /// no cell text escapes into syntax (a raw &lt; or an unescaped | inside a cell would change the cell count).
    /// </summary>
    private static void CheckMarkdown(ReportDocument report, string markdown)
    {
        var lines = markdown.Split('\n').Select(l => l.TrimEnd('\r')).ToList();
        if (report.Heading is not null) Assert.StartsWith("## ", lines[0], StringComparison.Ordinal);
        var tables = 0;
        for (var i = 0; i < lines.Count; i++)
        {
            if (!lines[i].StartsWith('|') || (i > 0 && lines[i - 1].StartsWith('|'))) continue;
            tables++;
            Assert.StartsWith("### ", lines[i - 2], StringComparison.Ordinal);
            var cells = Cells(lines[i]);
            Assert.Matches(@"^\|(---:?\|)+$", lines[i + 1]);
            Assert.Equal(cells, Cells(lines[i + 1]));
            for (var j = i + 2; j < lines.Count && lines[j].StartsWith('|'); j++)
            {
                Assert.Equal(cells, Cells(lines[j]));
                Assert.DoesNotContain('<', lines[j]);
            }
        }
        Assert.Equal(report.Parts.OfType<TablePart>().Count(), tables);
    }

    private static void CheckHtml(string path)
    {
        var parser = new HtmlParser(new HtmlParserOptions { IsStrictMode = true });
        var doc = parser.ParseDocument(File.ReadAllText(path));
        Assert.False(string.IsNullOrWhiteSpace(doc.Title));
        Assert.NotEmpty(doc.QuerySelectorAll("table"));
        // Links to other files (the flame graphs) point at files that exist.
        foreach (var href in doc.QuerySelectorAll("a[href]").Select(a => a.GetAttribute("href")!).Where(h => !h.Contains(':', StringComparison.Ordinal) && !h.StartsWith('#')))
            Assert.True(File.Exists(Path.Combine(Path.GetDirectoryName(path)!, Uri.UnescapeDataString(href))), href);
    }

    /// <summary>One speedscope file per profile with samples, each a speedscope document with a profile in it.</summary>
    private static void CheckSpeedscope(ReportDocument report, string dir)
    {
        var files = Directory.GetFiles(dir, "*.speedscope.json");
        Assert.Equal(report.Stacks!.Profiles.Count(p => p.Samples > 0), files.Length);
        Assert.NotEmpty(files);
        foreach (var file in files)
        {
            using var doc = JsonDocument.Parse(File.ReadAllText(file));
            Assert.Contains("speedscope", doc.RootElement.GetProperty("$schema").GetString(), StringComparison.Ordinal);
            Assert.NotEqual(0, doc.RootElement.GetProperty("profiles").GetArrayLength());
        }
    }

    /// <summary>
    /// The Firefox Profiler's processed format as its types define it (src/types/profile.ts): every column as long as
    /// its table says, every index inside the table it points into, stacks prefixed by earlier stacks, each thread's
    /// samples in time order, each marker's type a schema. Loading it in the profiler's own code is ViewerTests'.
    /// </summary>
    private static void CheckFirefox(string path)
    {
        var profile = Reports.FirefoxProfileFile.Read(path);
        var meta = profile.GetProperty("meta");
        Assert.Equal(FirefoxExporter.ProcessedProfileVersion, meta.GetProperty("preprocessedProfileVersion").GetInt32());
        var categories = meta.GetProperty("categories").EnumerateArray().Select(c => c.GetProperty("subcategories").GetArrayLength()).ToList();
        Assert.Equal("grey", meta.GetProperty("categories")[0].GetProperty("color").GetString()); // the default category
        var schemas = meta.GetProperty("markerSchema").EnumerateArray().Select(m => m.GetProperty("name").GetString()).ToHashSet();
        var shared = profile.GetProperty("shared");
        var strings = shared.GetProperty("stringArray").GetArrayLength();
        int[] Column(JsonElement table, string name)
        {
            var column = table.GetProperty(name);
            Assert.Equal(table.GetProperty("length").GetInt32(), column.GetArrayLength());
            return [.. column.EnumerateArray().Select(v => v.ValueKind == JsonValueKind.Null ? -1 : (int)v.GetDouble())];
        }
        void Within(int[] values, int count, string what) => Assert.All(values, v => Assert.True(v >= -1 && v < count, $"{what} {v} is outside 0..{count - 1}"));
        var resources = shared.GetProperty("resourceTable");
        Within(Column(resources, "name"), strings, "resource name");
        Within(Column(resources, "lib"), profile.GetProperty("libs").GetArrayLength(), "resource lib");
        var funcs = shared.GetProperty("funcTable");
        Within(Column(funcs, "name"), strings, "func name");
        Within(Column(funcs, "resource"), resources.GetProperty("length").GetInt32(), "func resource");
        var frames = shared.GetProperty("frameTable");
        Within(Column(frames, "func"), funcs.GetProperty("length").GetInt32(), "frame func");
        var frameCategory = Column(frames, "category");
        var frameSubcategory = Column(frames, "subcategory");
        for (var f = 0; f < frameCategory.Length; f++) Assert.InRange(frameSubcategory[f], 0, categories[frameCategory[f]] - 1);
        var stacks = shared.GetProperty("stackTable");
        Within(Column(stacks, "frame"), frames.GetProperty("length").GetInt32(), "stack frame");
        var prefix = Column(stacks, "prefix");
        for (var i = 0; i < prefix.Length; i++) Assert.InRange(prefix[i], -1, i - 1);
        var samples = 0;
        foreach (var thread in profile.GetProperty("threads").EnumerateArray())
        {
            var table = thread.GetProperty("samples");
            Within(Column(table, "stack"), stacks.GetProperty("length").GetInt32(), "sample stack");
            var times = table.GetProperty("time").EnumerateArray().Select(t => t.GetDouble()).ToList();
            Assert.Equal(times.Order(), times);
            Assert.All(Column(table, "weight"), w => Assert.True(w >= 0));
            Column(table, "threadCPUDelta");
            samples += times.Count;
            var markers = thread.GetProperty("markers");
            Within(Column(markers, "name"), strings, "marker name");
            Within(Column(markers, "category"), categories.Count, "marker category");
            Column(markers, "phase");
            Assert.All(markers.GetProperty("data").EnumerateArray(), d => Assert.Contains(d.GetProperty("type").GetString(), schemas));
        }
        Assert.True(samples > 0, "no samples");
    }

    private static int Cells(string row) => UnescapedPipe().Split(row.Trim('|')).Length;

    /// <summary>RFC 4180 records, grouped by the blank lines between tables.</summary>
    internal static List<List<IReadOnlyList<string>>> SplitRecords(string csv)
    {
        var blocks = new List<List<IReadOnlyList<string>>> { new() };
        var record = new List<string>();
        var cell = new StringBuilder();
        var quoted = false;
        for (var i = 0; i < csv.Length; i++)
        {
            var c = csv[i];
            if (quoted)
            {
                if (c == '"' && i + 1 < csv.Length && csv[i + 1] == '"') { cell.Append('"'); i++; }
                else if (c == '"') quoted = false;
                else cell.Append(c);
            }
            else if (c == '"') quoted = true;
            else if (c == ',') { record.Add(cell.ToString()); cell.Clear(); }
            else if (c == '\r') { }
            else if (c == '\n')
            {
                if (record.Count == 0 && cell.Length == 0) { blocks.Add([]); continue; }
                record.Add(cell.ToString());
                cell.Clear();
                blocks[^1].Add(record);
                record = [];
            }
            else cell.Append(c);
        }
        Assert.False(quoted, "an unterminated quoted cell");
        Assert.True(record.Count == 0 && cell.Length == 0, "the last record has no line end");
        return [.. blocks.Where(b => b.Count > 0)];
    }

    [GeneratedRegex(@"(?<!\\)\|")]
    private static partial Regex UnescapedPipe();

    /// <summary>Progress lines as they are reported (Progress&lt;T&gt; would post them to the thread pool).</summary>
    private sealed class LineCollector(List<string> lines) : IProgress<string>
    {
        public void Report(string value) => lines.Add(value);
    }
}
