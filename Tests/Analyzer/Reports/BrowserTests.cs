using System.Text.RegularExpressions;
using EtwSerializerProfiler.Tests.EndToEnd;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>
/// The report opened in a real browser, offline: its scripts run without errors and draw every chart. The page
/// itself reports that in #report-status (data-status="ok" and the number of charts drawn), read from the DOM
/// Chromium dumps after running the page.
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

    private static string Tail(string s) => s.Length <= 2000 ? s : s[^2000..];

    [GeneratedRegex(@"<p id=""report-status"" data-status=""(?<status>[a-z]+)""(?: data-charts=""(?<charts>\d+)"")?>(?<text>[^<]*)</p>")]
    private static partial Regex Status();

    [GeneratedRegex(@"<figure class=""chart-figure"" data-chart=")]
    private static partial Regex ChartCount();

    [GeneratedRegex(@"<div id=""chart-\d+"" class=""chart[^""]*""[^>]*><svg ")]
    private static partial Regex SvgChart();
}
