using System.Globalization;
using System.Text.Json;
using System.Text.RegularExpressions;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Analyzer.Reports.Html;
using Sections = EtwSerializerProfiler.Analyzer.Reports.Html.Sections;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>
/// The HTML page of a golden recording (Tests/Fixtures/Golden) read as a person reads it (issue 44) and held to the
/// JSON report of the same analysis (issue 42): every chart value cell by cell against the JSON's figures; the page
/// in headless Chromium at 1280x900 short with its details folded, no wider than its column with them all open,
/// every anchor resolving, a call tree and the timeline drawn with a size.
/// </summary>
public sealed partial class HtmlReadabilityTests
{
    /// <summary>Six screens of 900 px: the page with every details element folded must fit in them.</summary>
    private const int MaxFoldedHeightPx = 6 * 900;
    /// <summary>Charts keep five significant digits (ChartSpec.Round).</summary>
    private const double RelativeTolerance = 1e-4;

    private sealed record Page(string Html, JsonElement Json, TraceAnalysis Analysis, string Path);

    private static readonly Dictionary<string, Page> Pages = [];
    private static readonly Lock Gate = new();

    private static Page Of(string recording)
    {
        lock (Gate)
        {
            if (Pages.TryGetValue(recording, out var known)) return known;
            var dir = Repo.NewTempDir("html-" + recording);
            var zip = Repo.CopyGoldenRecording(recording, dir);
            using var input = TraceInput.Open(zip);
            var analysis = new TraceAnalyzer(new AnalyzerOptions { CacheEtlx = false, CollectHotMethods = true }).Analyze(input);
            var json = JsonDocument.Parse(AnalysisReport.Render(analysis, TableFormat.Json, top: 15)).RootElement.Clone();
            var path = System.IO.Path.Combine(dir, "report.html");
            var html = AnalysisHtmlReport.Render(analysis, RunStackCollector.Collect(analysis), path);
            File.WriteAllText(path, html);
            return Pages[recording] = new Page(html, json, analysis, path);
        }
    }

    [Theory]
    [InlineData("kernel-session")]
    [InlineData("eventpipe-only")]
    public void Every_chart_value_equals_the_json_reports_figure(string recording)
    {
        var page = Of(recording);
        var cases = page.Json.GetProperty("serializers").EnumerateArray()
            .ToDictionary(s => (s.GetProperty("serializer").GetString()!, s.GetProperty("operation").GetString()!, s.GetProperty("objects").GetInt32()));
        var runs = page.Json.GetProperty("runs").EnumerateArray()
            .ToDictionary(r => RunName(r.GetProperty("serializer").GetString()!, r.GetProperty("operation").GetString()!, r.GetProperty("objects").GetInt32(), r.GetProperty("run").GetInt32()));
        var manyN = cases.Keys.Select(k => k.Item3).Distinct().Count() > 1;
        var checkedCells = 0;
        foreach (var chart in Charts(page.Html))
        {
            var name = chart.GetProperty("name").GetString()!;
            var data = chart.GetProperty("data");
            var m = ChartName().Match(name);
            Assert.True(m.Success, $"chart {name}: no check for it (every chart must be held to the JSON)");
            int? n = m.Groups["n"].Success ? int.Parse(m.Groups["n"].Value, CultureInfo.InvariantCulture) : null;
            Assert.Equal(manyN, n is not null);
            var labels = data.TryGetProperty("labels", out var l) ? l.EnumerateArray().Select(x => x.GetString()!).ToList() : [];
            switch (m.Groups["kind"].Value)
            {
                case "size":
                {
                    var values = Single(data).ToList();
                    for (var i = 0; i < labels.Count; i++, checkedCells++)
                    {
                        // Size is the payload's: the same for both operations of a serializer and N.
                        var json = cases.First(c => c.Key.Item1 == labels[i] && (n is null || c.Key.Item3 == n) && c.Value.GetProperty("sizeBytes").ValueKind == JsonValueKind.Number).Value;
                        Near(json.GetProperty("sizeBytes").GetDouble() / 1024, values[i], $"{name} {labels[i]}");
                    }
                    break;
                }
                case "gc-count":
                case "gc-pause":
                {
                    var rows = labels.Select(label => cases.Single(c => c.Key.Item1 + " " + c.Key.Item2 == label && (n is null || c.Key.Item3 == n)).Value).ToList();
                    foreach (var series in data.GetProperty("series").EnumerateArray())
                    {
                        var values = series.GetProperty("data").EnumerateArray().Select(v => v.GetProperty("value").GetDouble()).ToList();
                        var gen = series.GetProperty("name").GetString()!;
                        for (var i = 0; i < rows.Count; i++, checkedCells++)
                        {
                            var expected = m.Groups["kind"].Value == "gc-pause" ? rows[i].GetProperty("gcPauseMs").GetDouble() : rows[i].GetProperty("gcCount").GetProperty(gen).GetDouble();
                            Near(expected, values[i], $"{name} {labels[i]} {gen}");
                        }
                    }
                    break;
                }
                case "scaling":
                {
                    var op = m.Groups["op"].Value;
                    foreach (var series in data.GetProperty("series").EnumerateArray())
                        foreach (var point in series.GetProperty("data").EnumerateArray())
                        {
                            var x = point.GetProperty("value").GetProperty("x").GetDouble();
                            var y = point.GetProperty("value").GetProperty("y").GetDouble();
                            var json = cases[(series.GetProperty("name").GetString()!, op, (int)Math.Round(Math.Pow(10, x)))];
                            Near(Math.Log10(json.GetProperty("durationMs").GetDouble()), y, $"{name} {series.GetProperty("name")} N={Math.Pow(10, x)}");
                            checkedCells++;
                        }
                    break;
                }
                case "timeline":
                    checkedCells += CheckTimeline(chart, runs);
                    break;
                default:
                    Assert.Fail($"chart {name}: no check for it");
                    break;
            }
        }
        // Every chart kind is on the page, and the cells checked are all of its values.
        var names = Charts(page.Html).Select(c => c.GetProperty("name").GetString()!).ToList();
        foreach (var kind in new[] { "size", "gc-count", "gc-pause", "timeline" })
            Assert.Contains(names, x => x.StartsWith(kind, StringComparison.Ordinal));
        Assert.Equal(Charts(page.Html).Sum(CellCount), checkedCells);
        CheckPicture(page);
    }

    /// <summary>
    /// The picture, segment by segment: its ms per operation is the JSON's durationMs; a segment of a kind of cause is
    /// the JSON's tag times of that kind (off CPU: the verdict's offCpuMs), and as wide as its share; every verdict's
    /// named cause fits in the segment of its kind; the segments add up to the verdict's onCpuMs + offCpuMs.
    /// </summary>
    private static void CheckPicture(Page page)
    {
        var summaries = page.Json.GetProperty("serializers").EnumerateArray()
            .ToDictionary(s => $"{s.GetProperty("serializer").GetString()} {s.GetProperty("operation").GetString()}{Fmt.NSuffix(s.GetProperty("objects").GetInt32())}");
        var verdicts = page.Json.GetProperty("verdicts").EnumerateArray().ToDictionary(v =>
            $"{v.GetProperty("serializer").GetString()} {v.GetProperty("operation").GetString()}{Fmt.NSuffix(v.GetProperty("objects").ValueKind == JsonValueKind.Number ? v.GetProperty("objects").GetInt32() : 0)}");
        var doc = new AngleSharp.Html.Parser.HtmlParser().ParseDocument(page.Html);
        var cells = doc.QuerySelectorAll(".picture-cell[data-case]").ToList();
        Assert.Equal(verdicts.Keys.Order(), cells.Select(c => c.GetAttribute("data-case")!).Order());
        foreach (var cell in cells)
        {
            var name = cell.GetAttribute("data-case")!;
            var (summary, verdict) = (summaries[name], verdicts[name]);
            Assert.Equal(Fmt.Ms(summary.GetProperty("durationMs").GetDouble()), cell.QuerySelector(".ms")!.TextContent);
            var segments = cell.QuerySelectorAll(".seg").Select(x => (Kind: x.GetAttribute("data-kind")!, Ms: double.Parse(x.GetAttribute("data-ms")!, CultureInfo.InvariantCulture),
                Width: double.Parse(WidthPercent().Match(x.GetAttribute("style")!).Groups[1].Value, CultureInfo.InvariantCulture))).ToList();
            Assert.Equal(segments.Count, segments.Select(x => x.Kind).Distinct().Count());
            var time = verdict.GetProperty("onCpuMs").GetDouble() + verdict.GetProperty("offCpuMs").GetDouble();
            Near(time, segments.Sum(x => x.Ms), $"{name}: the bar's time", segments.Count * 1e-5);
            double Expected(string kind) => kind == Cause.OffCpu ? verdict.GetProperty("offCpuMs").GetDouble()
                : summary.GetProperty("tags").EnumerateObject().Where(t => KindOfTag(t.Name) == kind).Sum(t => t.Value.GetDouble());
            foreach (var (kind, ms, width) in segments)
            {
                Near(Expected(kind), ms, $"{name} {kind}", JsonTagRounding);
                Near(ms / time * 100, width, $"{name} {kind} width %", 0.01);
            }
            foreach (var kind in summary.GetProperty("tags").EnumerateObject().Select(t => KindOfTag(t.Name)).Append(Cause.OffCpu).Distinct().Where(k => Expected(k) > JsonTagRounding))
                Assert.Contains(kind, segments.Select(x => x.Kind));
            foreach (var cause in verdict.GetProperty("causes").EnumerateArray())
            {
                var tags = cause.GetProperty("tags").EnumerateArray().Select(t => t.GetString()!).ToList();
                var kind = cause.GetProperty("ownCode").GetBoolean() ? StackTagGroups.SerializerCode : tags.Count == 0 ? Cause.OffCpu : KindOfTag(tags[0]);
                Assert.True(segments.Any(x => x.Kind == kind && x.Ms >= cause.GetProperty("ms").GetDouble() - 1e-4), $"{name}: {cause.GetProperty("name")} has no segment of kind {kind} as large");
            }
        }
    }

    /// <summary>The kind of cause of a JSON tag path, as docs/verdicts.md says: the serializer's code, other code, or the path's first level.</summary>
    private static string KindOfTag(string tag)
    {
        var first = tag.Split('\\')[0];
        return first is "Serialize" or "Deserialize" ? StackTagGroups.SerializerCode
            : first.Length == 0 || first == "Other" || first.StartsWith("Test ", StringComparison.Ordinal) ? Cause.OtherCode : first;
    }

    /// <summary>
    /// Each run bar ends at the JSON run's start and start + duration, on the row of its case; a GC mark marked "in a
    /// measured run" names a run whose JSON has a GC pause, and every measured run with a pause has a mark.
    /// </summary>
    private static int CheckTimeline(JsonElement chart, Dictionary<string, JsonElement> runs)
    {
        var ticks = chart.GetProperty("options").GetProperty("axisY").GetProperty("tickLabels").EnumerateArray()
            .ToDictionary(t => t[0].GetDouble(), t => t[1].GetString()!);
        var cells = 0;
        var marked = new HashSet<string>();
        foreach (var series in chart.GetProperty("data").GetProperty("series").EnumerateArray())
        {
            var seriesName = series.GetProperty("name").GetString()!;
            foreach (var point in series.GetProperty("data").EnumerateArray().Where(p => p.ValueKind != JsonValueKind.Null).Select((p, i) => (p, i)))
            {
                var meta = point.p.GetProperty("meta").GetString()!;
                var x = point.p.GetProperty("value").GetProperty("x").GetDouble();
                var y = point.p.GetProperty("value").GetProperty("y").GetDouble();
                cells++;
                if (seriesName.StartsWith("GC pause", StringComparison.Ordinal))
                {
                    if (meta.Contains("between runs", StringComparison.Ordinal)) { Assert.Equal("(between runs)", ticks[y]); continue; }
                    var run = GcRunInMeta().Match(meta);
                    Assert.True(run.Success, meta);
                    var json = runs[run.Groups[1].Value];
                    Assert.StartsWith(ticks[y] + " run ", run.Groups[1].Value, StringComparison.Ordinal);
                    var start = json.GetProperty("startMs").GetDouble() / 1000;
                    var end = start + json.GetProperty("durationMs").GetDouble() / 1000;
                    Assert.True(x <= end + 1e-4, $"{meta}: mark at {x} s after the run's end {end} s");
                    var measured = !json.GetProperty("warmup").GetBoolean() && !json.GetProperty("outlier").GetBoolean();
                    Assert.Equal(measured, seriesName == "GC pause in a measured run");
                    if (measured)
                    {
                        Assert.True(json.GetProperty("gcPauseMs").GetDouble() > 0, $"{meta}: the JSON run has no GC pause");
                        marked.Add(run.Groups[1].Value);
                    }
                    continue;
                }
                var key = RunInMeta().Match(meta).Groups[1].Value;
                var r = runs[key];
                Assert.StartsWith(ticks[y] + " run ", key, StringComparison.Ordinal);
                var startS = r.GetProperty("startMs").GetDouble() / 1000;
                var endS = startS + r.GetProperty("durationMs").GetDouble() / 1000;
                // The two ends of a bar: even points start it, odd ones end it.
                Near(point.i % 2 == 0 ? startS : endS, x, $"timeline {meta} {(point.i % 2 == 0 ? "start" : "end")}");
            }
        }
        var paused = runs.Where(r => !r.Value.GetProperty("warmup").GetBoolean() && !r.Value.GetProperty("outlier").GetBoolean() && r.Value.GetProperty("gcPauseMs").GetDouble() > 0).Select(r => r.Key).ToHashSet();
        Assert.Equal(paused.Order(), marked.Order());
        return cells;
    }

    [Fact]
    public void Unnamed_frame_chains_are_one_row_named_as_the_hot_method_tables_name_them()
    {
        var page = Of("kernel-session");
        var stacks = RunStackCollector.Collect(page.Analysis);
        var chains = stacks.Profiles.SelectMany(p => Nodes(p.Tree.Root)).Where(n => UnnamedFrames.IsChain(n.Name)).ToList();
        Assert.NotEmpty(chains); // the kernel session's stripped libcoreclr
        // No unnamed frame is left as a node of its own, and no chain sits right under another.
        foreach (var p in stacks.Profiles)
            foreach (var node in Nodes(p.Tree.Root))
            {
                Assert.DoesNotMatch(@"!\?$", node.Name);
                if (UnnamedFrames.IsChain(node.Name)) Assert.DoesNotContain(node.Children, c => UnnamedFrames.IsChain(c.Name));
            }
        Assert.Contains(chains, c => c.MaxFrames > 1);
        // Named by the tables' words: "native", "JIT", "type loading", "GC", "stub".
        var said = page.Json.GetProperty("hotMethods").EnumerateArray().SelectMany(h => h.GetProperty("methods").EnumerateArray())
            .Where(mm => mm.TryGetProperty("calledFrom", out var c) && c.ValueKind == JsonValueKind.Array)
            .SelectMany(mm => mm.GetProperty("calledFrom").EnumerateArray().Select(c => c.GetProperty("work").GetString()!)).ToHashSet();
        Assert.NotEmpty(said);
        foreach (var chain in chains)
            Assert.Matches(@"^[\w.+-]+!\? \((native|JIT|type loading|GC|stub)\)$", chain.Name);
        Assert.Contains(chains, c => said.Any(w => c.Name.EndsWith($"({w})", StringComparison.Ordinal)));
        // On the page: one line says how many frames the chain holds.
        Assert.Matches(@"!\? \((native|JIT|type loading|GC|stub)\): \d+(-\d+)? unnamed frames?<", page.Html);
        // The call trees are per case and folded.
        Assert.Equal(stacks.Profiles.Count, CallTreeOpen().Matches(page.Html).Count);
    }

    [Fact]
    public void Findings_name_their_N_and_runs_as_the_text_output_does()
    {
        var page = Of("eventpipe-only");
        Assert.NotEmpty(page.Analysis.Findings);
        foreach (var f in page.Analysis.Findings.Where(f => f.Serializer is not null && f.Objects is not null))
            Assert.Contains(System.Net.WebUtility.HtmlEncode($"{FindingsReport.Subject(f)} ({FindingsReport.Runs(f)})"), page.Html, StringComparison.Ordinal);
        Assert.Contains(" N=300 (run", page.Html, StringComparison.Ordinal);
        // Each finding about a case links to that case's call tree.
        var profiles = RunStackCollector.Collect(page.Analysis).Profiles;
        var linked = page.Analysis.Findings.Where(f => profiles.Any(p => p.Serializer == f.Serializer && p.Operation == f.Operation && p.Objects == f.Objects)).ToList();
        Assert.NotEmpty(linked);
        Assert.Equal(linked.Count, TreeLink().Matches(page.Html).Count);
        foreach (var f in linked)
            Assert.Contains($"href=\"#{Sections.CallTreeSection.AnchorOf(profiles.Single(p => p.Serializer == f.Serializer && p.Operation == f.Operation && p.Objects == f.Objects))}\" class=\"tree-link\"", page.Html, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("kernel-session")]
    [InlineData("eventpipe-only")]
    public void Every_anchor_link_resolves_and_the_picture_and_the_verdicts_come_first(string recording)
    {
        var page = Of(recording);
        var ids = IdAttribute().Matches(page.Html).Select(m => m.Groups[1].Value).ToList();
        Assert.Equal(ids.Count, ids.Distinct().Count());
        var hrefs = LocalHref().Matches(page.Html).Select(m => m.Groups[1].Value).ToList();
        Assert.True(hrefs.Count >= 9, $"only {hrefs.Count} local links: the table of contents is missing");
        foreach (var href in hrefs) Assert.Contains(href, ids);
        // The verdicts come right under the subtitle, before the charts' status line, one block per case.
        // The picture opens the page's body; the verdicts follow it, before the evidence.
        Assert.Matches(@"<main><section id=""causes"">", page.Html);
        Assert.InRange(page.Html.IndexOf("<section id=\"verdicts\">", StringComparison.Ordinal), page.Html.IndexOf("<section id=\"causes\">", StringComparison.Ordinal) + 1, page.Html.IndexOf("<section id=\"overview\">", StringComparison.Ordinal));
        var cases = page.Analysis.Runs.Where(r => r.IsMeasured).Select(r => (r.Key.Serializer, r.Key.Operation, r.Key.Objects)).Distinct().Count();
        Assert.Equal(cases, Regex.Matches(page.Html, @"<details class=""verdict"" data-case=").Count);
        Assert.Equal(cases, Regex.Matches(page.Html, @"<a class=""picture-cell"" href=""#tree-").Count);
    }

    [Fact]
    [EndToEnd] // starts Chromium
    public void In_headless_Chromium_the_page_is_short_fits_its_column_opens_a_case_on_a_click_and_draws_the_timeline()
    {
        var page = Of("kernel-session");
        var png = System.IO.Path.Combine(System.IO.Path.GetDirectoryName(page.Path)!, "top.png");
        var (metrics, _) = Chromium.Probe(page.Path, page.Html, ProbeScript, "--window-size=1280,900", $"--screenshot={png}");
        int Px(string name) => metrics.GetProperty(name).GetInt32();
        Assert.Equal("ok", metrics.GetProperty("status").GetString());
        Assert.True(Px("foldedHeight") > 900, $"folded page {Px("foldedHeight")} px: too short to hold the charts");
        Assert.True(Px("foldedHeight") <= MaxFoldedHeightPx, $"folded page {Px("foldedHeight")} px, over {MaxFoldedHeightPx} px");
        // With every details element open, nothing is wider than the main column or the window.
        Assert.True(Px("pageWidth") <= 1280, $"page {Px("pageWidth")} px wide");
        Assert.True(Px("mainScrollWidth") <= Px("mainClientWidth"), $"main column scrolls: {Px("mainScrollWidth")} > {Px("mainClientWidth")}");
        Assert.True(metrics.GetProperty("overflowing").GetArrayLength() == 0, "wider than the main column: " + metrics.GetProperty("overflowing"));
        Assert.True(metrics.GetProperty("missingAnchors").GetArrayLength() == 0, "unresolved links: " + metrics.GetProperty("missingAnchors"));
        Assert.True(Px("openHeight") > Px("foldedHeight"), "opening the details shows nothing more");
        // A call tree and the timeline, open, have a size; the timeline drew a bar per run end.
        Assert.True(Px("treeWidth") > 400 && Px("treeHeight") > 100, $"call tree {Px("treeWidth")}x{Px("treeHeight")}");
        Assert.True(Px("timelineWidth") > 400 && Px("timelineHeight") > 100, $"timeline {Px("timelineWidth")}x{Px("timelineHeight")}");
        Assert.True(Px("timelineLines") >= page.Analysis.Runs.Select(x => x.IsWarmup).Distinct().Count(), $"timeline drew {Px("timelineLines")} series");

        // A click on a bar opens its case under the picture, a second closes it: its verdict, hot methods and call tree, copied without their ids.
        var panel = metrics.GetProperty("panel");
        Assert.True(panel.GetProperty("shown").GetBoolean() && panel.GetProperty("closed").GetBoolean(), panel.ToString());
        Assert.Equal(metrics.GetProperty("clicked").GetString(), panel.GetProperty("name").GetString());
        foreach (var part in new[] { "verdicts", "hotMethods", "trees" }) Assert.True(panel.GetProperty(part).GetInt32() == 1, $"{part}: {panel}");
        Assert.Equal(0, panel.GetProperty("ids").GetInt32());
        Assert.True(File.Exists(png) && new FileInfo(png).Length > 30_000, "the screenshot of the top is blank or missing");
    }

    /// <summary>
    /// Runs in the page once its charts are drawn (<see cref="Chromium.Probe"/>): clicks the picture's first bar and
    /// sees what opened, then measures the page folded, and again with every details element open.
    /// </summary>
    private const string ProbeScript = """
        function (done) {
          var d = document.documentElement, main = document.querySelector('main');
          var out = { status: document.getElementById('report-status').getAttribute('data-status'), foldedHeight: d.scrollHeight };
          var cell = document.querySelector('.picture-cell[data-case]'), panel = document.getElementById('case-panel');
          cell.click();
          out.clicked = cell.getAttribute('data-case');
          out.panel = { shown: !panel.hidden, name: panel.getAttribute('data-case'), verdicts: panel.querySelectorAll('details.verdict[open]').length,
            hotMethods: panel.querySelectorAll('details[open] table.data').length, trees: panel.querySelectorAll('details.call-tree[open] .tree').length,
            ids: panel.querySelectorAll('[id]').length };
          cell.click();
          out.panel.closed = panel.hidden;
          document.querySelectorAll('details').forEach(function (x) { x.open = true; });
          setTimeout(function () {
            var right = main.getBoundingClientRect().right + 1;
            out.openHeight = d.scrollHeight;
            out.pageWidth = d.scrollWidth;
            out.mainScrollWidth = main.scrollWidth;
            out.mainClientWidth = main.clientWidth;
            out.overflowing = [];
            main.querySelectorAll('*').forEach(function (e) {
              var r = e.getBoundingClientRect();
              if (r.width > 0 && r.right > right && out.overflowing.length < 10) out.overflowing.push(e.tagName + '.' + (e.getAttribute('class') || '') + ' ' + Math.round(r.right));
            });
            out.missingAnchors = [];
            document.querySelectorAll('a[href^="#"]').forEach(function (a) {
              var id = decodeURIComponent(a.getAttribute('href').slice(1));
              if (!document.getElementById(id)) out.missingAnchors.push(id);
            });
            var tree = document.querySelector('#call-trees details.call-tree').getBoundingClientRect();
            out.treeWidth = Math.round(tree.width); out.treeHeight = Math.round(tree.height);
            var timeline = document.querySelector('figure[data-chart="timeline"] svg');
            var t = timeline ? timeline.getBoundingClientRect() : { width: 0, height: 0 };
            out.timelineWidth = Math.round(t.width); out.timelineHeight = Math.round(t.height);
            out.timelineLines = timeline ? timeline.querySelectorAll('.ct-series').length : 0;
            done(out);
          }, 300);
        }
        """;

    private static IEnumerable<CallTreeNode> Nodes(CallTreeNode node) => node.Children.SelectMany(c => Nodes(c).Prepend(c));

    private static List<JsonElement> Charts(string html) =>
        [.. JsonDocument.Parse(ChartsJson().Match(html).Groups[1].Value).RootElement.EnumerateArray().Select(c => c.Clone())];

    private static int CellCount(JsonElement chart) => chart.GetProperty("data").GetProperty("series").EnumerateArray()
        .Sum(s => s.GetProperty("data").EnumerateArray().Count(p => p.ValueKind != JsonValueKind.Null));

    private static IEnumerable<double> Single(JsonElement data) =>
        Assert.Single(data.GetProperty("series").EnumerateArray()).GetProperty("data").EnumerateArray().Select(v => v.GetProperty("value").GetDouble());

    /// <param name="absolute">The JSON's own rounding, where it rounds (tag times: 4 decimals, one half-unit per path added).</param>
    private static void Near(double expected, double actual, string what, double absolute = 1e-9) =>
        Assert.True(Math.Abs(expected - actual) <= Math.Abs(expected) * RelativeTolerance + absolute, $"{what}: chart {actual}, JSON {expected}");

    /// <summary>The JSON writes tag times to 4 decimals; a group adds up to a handful of paths.</summary>
    private const double JsonTagRounding = 5 * 0.5e-4;

    private static string RunName(string serializer, string operation, int objects, int run) => $"{serializer} {operation}{Fmt.NSuffix(objects)} run {run}";

    [GeneratedRegex(@"width: ([\d.]+)%")]
    private static partial Regex WidthPercent();

    [GeneratedRegex(@"^(?<kind>size|gc-count|gc-pause|scaling|timeline)(?:-(?<op>[a-z]+))?(?:-N(?<n>\d+))?$")]
    private static partial Regex ChartName();

    [GeneratedRegex(@"<script type=""application/json"" id=""report-charts"">(.*?)</script>", RegexOptions.Singleline)]
    private static partial Regex ChartsJson();

    [GeneratedRegex(@"^(.+? run \d+)(?= \(|:)")]
    private static partial Regex RunInMeta();

    [GeneratedRegex(@", in (.+? run \d+)(?= \(|$)")]
    private static partial Regex GcRunInMeta();

    [GeneratedRegex(@"<details class=""call-tree"" id=""tree-")]
    private static partial Regex CallTreeOpen();

    [GeneratedRegex(@"\sid=""([^""]+)""")]
    private static partial Regex IdAttribute();

    [GeneratedRegex(@"\shref=""#([^""]*)""")]
    private static partial Regex LocalHref();

    [GeneratedRegex(@"class=""tree-link""")]
    private static partial Regex TreeLink();

}
