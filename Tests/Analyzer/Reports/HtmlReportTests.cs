using System.Text.Json;
using System.Text.RegularExpressions;
using System.Xml;
using AngleSharp.Dom;
using AngleSharp.Html.Parser;
using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Analyzer.Reports.Html;
using EtwSerializerProfiler.Analyzer.Reports.Html.Sections;
using EtwSerializerProfiler.Tests.EndToEnd;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>The HTML report of a real recording: well-formed, complete, self-contained.</summary>
[EndToEnd]
[Collection(RecordedBenchmarkCollection.Name)]
public sealed partial class HtmlReportTests(RecordedBenchmark recorded)
{
    private GeneratedReport Report => GeneratedReport.Of(recorded);

    private IDocument Parse() => new HtmlParser(new HtmlParserOptions { IsStrictMode = true }).ParseDocument(Report.Html);

    [Fact]
    public void The_report_parses_as_strict_HTML5_and_as_XML()
    {
        // Strict mode throws on the first HTML5 parse error (unclosed or misnested elements, bad attributes...).
        var doc = Parse();
        Assert.Equal("html", doc.DocumentElement.LocalName);
        Assert.NotNull(doc.QuerySelector("main"));

        // The writer promises XHTML-compatible output too, which an XML reader checks to the letter.
        using var reader = XmlReader.Create(new StringReader(Report.Html), new XmlReaderSettings { DtdProcessing = DtdProcessing.Ignore });
        var elements = 0;
        while (reader.Read()) if (reader.NodeType == XmlNodeType.Element) elements++;
        Assert.True(elements > 100, $"only {elements} elements");
    }

    [Fact]
    public void The_report_names_every_serializer_and_has_every_chart_and_section()
    {
        var doc = Parse();
        var text = doc.Body!.TextContent;
        foreach (var s in RecordedBenchmark.Serializers) Assert.Contains(s, text, StringComparison.Ordinal);

        var charts = doc.QuerySelectorAll("figure[data-chart]").Select(f => f.GetAttribute("data-chart")).ToList();
        string[] expected = ["size", "gc-count", "gc-pause", "timeline"];
        foreach (var name in expected) Assert.Contains(name, charts);
        // The fixture records one N, so there is no scaling chart but a note saying how to get one.
        Assert.DoesNotContain(charts, c => c!.StartsWith("scaling-", StringComparison.Ordinal));
        Assert.Contains("one N per operation", doc.GetElementById("scaling")!.TextContent, StringComparison.Ordinal);

        // Every chart container has its data, and nothing else is in the chart data.
        var specs = JsonDocument.Parse(doc.GetElementById("report-charts")!.TextContent).RootElement;
        Assert.Equal(charts.Count, specs.GetArrayLength());
        foreach (var spec in specs.EnumerateArray()) Assert.NotNull(doc.GetElementById(spec.GetProperty("id").GetString()!));

        foreach (var id in new[] { "causes", "verdicts", "overview", "notes", "size", "gc", "scaling", "timeline", "call-trees", "tables" })
            Assert.NotNull(doc.GetElementById(id));
        // The tables are the ones `esp analyze` prints.
        var captions = doc.QuerySelectorAll("table.data caption").Select(c => c.TextContent).ToList();
        foreach (var t in AnalysisReport.OperationTables(recorded.Analysis)) Assert.Contains(t.Title, captions);
    }

    [Fact]
    public void The_picture_adds_up_to_the_analyzers_tags_and_off_cpu_time()
    {
        var doc = Parse();
        var verdicts = EtwSerializerProfiler.Analyzer.Reports.Verdicts.Of(recorded.Analysis);
        foreach (var v in verdicts.Where(v => v.Case.Operation == "deserialize"))
        {
            var cell = doc.QuerySelectorAll(".picture-cell[data-case]").SingleOrDefault(c => c.GetAttribute("data-case") == VerdictSection.CaseOf(v));
            Assert.True(cell is not null, $"no bar for {v.Case.Serializer}");
            var segments = cell.QuerySelectorAll(".seg").ToList();
            var charted = segments.Sum(x => double.Parse(x.GetAttribute("data-ms")!, System.Globalization.CultureInfo.InvariantCulture));
            // The worker's CPU by stack tag, and its time off the CPU but waiting for one.
            var expected = v.Case.Tags.Values.Sum() + v.OffCpuMs;
            Assert.True(Math.Abs(charted - expected) <= Math.Max(0.01, expected * 0.001), $"{v.Case.Serializer}: picture {charted} ms vs tags and off-CPU {expected} ms");
            Assert.Contains(segments, x => x.GetAttribute("data-kind") == StackTagGroups.SerializerCode);
        }
    }

    [Fact]
    public void The_timeline_has_every_run_as_a_bar()
    {
        var doc = Parse();
        var specs = JsonDocument.Parse(doc.GetElementById("report-charts")!.TextContent).RootElement;
        var timeline = specs.EnumerateArray().Single(s => s.GetProperty("name").GetString() == "timeline");
        var runPoints = timeline.GetProperty("data").GetProperty("series").EnumerateArray()
            .Where(s => !s.GetProperty("name").GetString()!.StartsWith("GC pause", StringComparison.Ordinal))
            .Sum(s => s.GetProperty("data").EnumerateArray().Count(p => p.ValueKind != JsonValueKind.Null));
        Assert.Equal(2 * recorded.Analysis.Runs.Count, runPoints);
    }

    [Fact]
    public void The_report_loads_nothing_from_the_network()
    {
        var doc = Parse();
        Assert.Empty(doc.QuerySelectorAll("link, iframe, object, embed, img[src], script[src]"));
        foreach (var element in doc.All)
            foreach (var attr in element.Attributes.Where(a => a.LocalName is "src" or "href" or "action" or "formaction" or "poster" or "data" or "srcset"))
                Assert.False(IsRemote(attr.Value), $"<{element.LocalName} {attr.Name}=\"{attr.Value}\">");
        foreach (var style in doc.QuerySelectorAll("style"))
        {
            Assert.DoesNotContain("@import", style.TextContent, StringComparison.OrdinalIgnoreCase);
            foreach (Match m in CssUrl().Matches(style.TextContent)) Assert.False(IsRemote(m.Groups[1].Value), $"CSS url({m.Groups[1].Value})");
        }
        // Scripts must not fetch anything either (namespace URIs in Chartist's code are names, not requests).
        foreach (var script in doc.QuerySelectorAll("script"))
        {
            Assert.DoesNotContain("XMLHttpRequest", script.TextContent, StringComparison.Ordinal);
            Assert.DoesNotContain("fetch(", script.TextContent, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Every_serializer_operation_and_N_has_a_call_tree_and_a_speedscope_file_and_the_profile_linked_from_the_report()
    {
        var doc = Parse();
        var trees = doc.QuerySelectorAll("details.call-tree").ToList();
        var expected = recorded.Analysis.Runs.Where(r => !r.IsWarmup).Select(r => (r.Key.Serializer, r.Key.Operation, r.Key.Objects)).Distinct().ToList();
        Assert.Equal(expected.Count, trees.Count);
        foreach (var (serializer, operation, objects) in expected)
        {
            var tree = trees.Single(t => t.GetAttribute("data-serializer") == serializer && t.GetAttribute("data-operation") == operation
                && t.GetAttribute("data-objects") == objects.ToString(System.Globalization.CultureInfo.InvariantCulture));
            var link = tree.QuerySelector("a.speedscope")!.GetAttribute("href")!;
            var file = Path.GetFullPath(Path.Combine(Path.GetDirectoryName(Report.HtmlPath)!, Uri.UnescapeDataString(link)));
            Assert.True(File.Exists(file), $"{serializer} {operation}: link {link} -> {file} missing");
            // And to the whole trace's Firefox Profiler profile, where its runs are markers.
            var profile = tree.QuerySelector("a.firefox")!.GetAttribute("href")!;
            Assert.Equal(Report.FirefoxPath, Path.GetFullPath(Path.Combine(Path.GetDirectoryName(Report.HtmlPath)!, Uri.UnescapeDataString(profile))));

            var json = JsonDocument.Parse(File.ReadAllText(file)).RootElement;
            Assert.Contains("speedscope", json.GetProperty("$schema").GetString(), StringComparison.Ordinal);
            Assert.NotEqual(0, json.GetProperty("profiles").GetArrayLength());
            var frames = json.GetProperty("shared").GetProperty("frames").EnumerateArray().Select(f => f.GetProperty("name").GetString()!).ToList();
            Assert.NotEmpty(frames);
            if (serializer == "Reflection")
            {
                // The serializer's own code is in its flame graph and in its call tree.
                Assert.Contains(frames, f => f.Contains("ReflectionSerializer", StringComparison.Ordinal));
                Assert.Contains("ReflectionSerializer", tree.TextContent, StringComparison.Ordinal);
            }
        }
        Assert.Equal(expected.Count, Directory.GetFiles(Report.SpeedscopeDir, "*.speedscope.json").Length);
    }

    [Theory]
    [InlineData("--html", "/proc/no-such-dir/report.html")]
    [InlineData("--speedscope", "/proc/no-such-dir")]
    [InlineData("--firefox", "/proc/no-such-dir/trace.json.gz")]
    public void An_unwritable_output_is_a_one_line_usage_error(string option, string path)
    {
        var r = Support.ProcessRunner.Dotnet(Path.Combine(Support.Repo.BinDir, "esp.dll"), "analyze", recorded.Folder.Path, option, path);
        Assert.Equal(Common.ExitCodes.Usage, r.ExitCode);
        Assert.Contains($"{option} {path}: cannot write there", r.StdErr, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", r.StdErr, StringComparison.Ordinal);
    }

    private static bool IsRemote(string url)
    {
        var u = url.Trim().Trim('"', '\'');
        return u.StartsWith("http:", StringComparison.OrdinalIgnoreCase) || u.StartsWith("https:", StringComparison.OrdinalIgnoreCase) || u.StartsWith("//", StringComparison.Ordinal);
    }

    [GeneratedRegex(@"url\(\s*([^)]*)\)", RegexOptions.IgnoreCase)]
    private static partial Regex CssUrl();
}
