using System.Text.Json;
using System.Text.RegularExpressions;
using EtwSerializerProfiler.Tests.EndToEnd;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>
/// The report opened in a real browser, offline: its scripts run without errors and draw every chart. The page
/// itself reports that in #report-status (data-status="ok" and the number of charts drawn), read from the DOM
/// Chromium dumps after running the page. The default benchmark's picture is readable on the first screen and printed
/// on page 1.
/// </summary>
[EndToEnd]
[Collection(RecordedBenchmarkCollection.Name)]
public sealed partial class BrowserTests(RecordedBenchmark recorded)
{
    [Fact]
    public void The_report_opens_in_headless_Chromium_and_draws_every_chart_without_script_errors()
    {
        var report = GeneratedReport.Of(recorded);
        var r = Chromium.Run(report.HtmlPath, "--dump-dom");
        Assert.True(r.ExitCode == 0, $"chromium exited {r.ExitCode}: {Tail(r.StdErr)}");
        var charts = ChartCount().Matches(report.Html).Count;
        var status = Status().Match(r.StdOut);
        Assert.True(status.Success, $"no #report-status in the dumped DOM: {Tail(r.StdOut)}");
        Assert.True(status.Groups["status"].Value == "ok", $"report status '{status.Groups["status"].Value}': {status.Groups["text"].Value}; chromium: {Tail(r.StdErr)}");
        Assert.Equal(charts.ToString(System.Globalization.CultureInfo.InvariantCulture), status.Groups["charts"].Value);
        // Chartist drew SVG into every container.
        Assert.Equal(charts, SvgChart().Matches(r.StdOut).Count);
        // The page logs nothing itself, so any console line (Chromium prints them all as "INFO:CONSOLE...") is an
        // uncaught error, a failed load or a warning from the chart library.
        var console = r.StdErr.Split('\n').Where(l => l.Contains(":CONSOLE", StringComparison.Ordinal)).ToList();
        Assert.True(console.Count == 0, "browser console:\n" + string.Join("\n", console));
    }

    [Fact]
    public void A_broken_page_is_reported_as_an_error_so_the_check_above_can_fail()
    {
        var report = GeneratedReport.Of(recorded);
        var broken = Path.Combine(Repo.NewTempDir("broken-report"), "broken.html");
        File.WriteAllText(broken, report.Html.Replace("id=\"report-charts\">[", "id=\"report-charts\">[oops", StringComparison.Ordinal));
        var r = Chromium.Run(broken, "--dump-dom");
        var status = Status().Match(r.StdOut);
        Assert.True(status.Success, Tail(r.StdOut));
        Assert.Equal("error", status.Groups["status"].Value);
    }

    [Fact]
    public void A_screenshot_of_the_report_has_content()
    {
        var report = GeneratedReport.Of(recorded);
        var png = Path.Combine(Path.GetDirectoryName(report.HtmlPath)!, "report.png");
        var r = Chromium.Run(report.HtmlPath, $"--screenshot={png}", "--window-size=1280,2000");
        Assert.True(File.Exists(png), $"no screenshot: {Tail(r.StdErr)}");
        // A blank page compresses to a few KB; charts, tables and text do not.
        Assert.True(new FileInfo(png).Length > 50_000, $"screenshot is only {new FileInfo(png).Length} bytes");
    }

    /// <summary>
    /// The default benchmark's page (<see cref="SixtyCases"/>, 15 serializers by 2 operations and 2 N), opened once at
    /// 1280x900: the probe measures every bar of the picture in both of its views, then Chromium prints the page.
    /// </summary>
    private static readonly Lazy<(JsonElement Bars, string Pdf, string Html)> DefaultBenchmark = new(() =>
    {
        var (path, html) = SixtyCases.HtmlPage;
        var pdf = Path.Combine(Path.GetDirectoryName(path)!, "report.pdf");
        var (bars, _) = Chromium.Probe(path, html, BarProbe, "--window-size=1280,900", $"--print-to-pdf={pdf}", "--no-pdf-header-footer");
        Assert.True(File.Exists(pdf), "Chromium printed no PDF");
        return (bars, pdf, html);
    });

    private const string BarProbe = """
        function (done) {
          function widths() {
            return Array.prototype.map.call(document.querySelectorAll('.picture-cell[data-case] .bar'), function (b) { return b.getBoundingClientRect().width; });
          }
          var out = { share: widths() };
          document.getElementById('scale-log').click();
          out.log = widths();
          document.getElementById('scale-share').click();
          out.bottom = Math.max.apply(null, Array.prototype.map.call(document.querySelectorAll('.picture-grid'), function (g) { return g.getBoundingClientRect().bottom; }));
          done(out);
        }
        """;

    [Fact]
    public void Every_bar_of_the_default_benchmarks_picture_is_at_least_20_px_long_in_both_views_and_on_the_first_screen()
    {
        var (bars, _, _) = DefaultBenchmark.Value;
        foreach (var view in new[] { "share", "log" })
        {
            var widths = bars.GetProperty(view).EnumerateArray().Select(w => w.GetDouble()).ToList();
            Assert.Equal(60, widths.Count);
            Assert.True(widths.Min() >= 20, $"{view}: the shortest bar is {widths.Min():F1} px");
        }
        Assert.True(bars.GetProperty("bottom").GetDouble() <= 900, $"the picture ends at {bars.GetProperty("bottom")} px, below the first screen");
    }

    [Fact]
    public void The_printed_report_shows_the_whole_picture_on_page_1()
    {
        var (_, pdf, html) = DefaultBenchmark.Value;
        var text = Chromium.PdfPageText(pdf, 1);
        Assert.Contains("Where the time goes", text, StringComparison.Ordinal);
        // pdftotext -layout keeps a grid's row on one line: the serializer, then its ms per operation in each case.
        var grid = new AngleSharp.Html.Parser.HtmlParser().ParseDocument(html).QuerySelectorAll(".picture-grid > *").ToList();
        var rows = 0;
        for (var i = 0; i < grid.Count; i++)
        {
            if (grid[i].ClassName != "picture-row") continue;
            var cells = grid.Skip(i + 1).TakeWhile(e => e.ClassName == "picture-cell").Select(e => Regex.Escape(e.QuerySelector(".ms")?.TextContent ?? "")).ToList();
            Assert.Matches(new Regex($@"(?m)^\s*{Regex.Escape(grid[i].TextContent)}\s+{string.Join(@"\s+", cells)}\s*$"), text);
            rows++;
        }
        Assert.Equal(15, rows);
    }

    private static string Tail(string s) => s.Length <= 2000 ? s : s[^2000..];

    [GeneratedRegex(@"<p id=""report-status"" data-status=""(?<status>[a-z]+)""(?: data-charts=""(?<charts>\d+)"")?>(?<text>[^<]*)</p>")]
    private static partial Regex Status();

    [GeneratedRegex(@"<figure class=""chart-figure"" data-chart=")]
    private static partial Regex ChartCount();

    [GeneratedRegex(@"<div id=""chart-\d+"" class=""chart[^""]*""[^>]*><svg ")]
    private static partial Regex SvgChart();
}
