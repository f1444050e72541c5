using System.Text.Json;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Analyzer.Reports.Html;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Robustness;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Samples;

/// <summary>
/// Samples are charged in one place (Analyzer/Samples/SampleCharger), so every output adds up to the same number: per
/// run, CPU equals the sum of its stack tags; per serializer and operation, the measured runs' CPU equals the call
/// tree's total (HTML) and the speedscope flame graph's covered time. Before, the kernel session rescaled the tables
/// to the context switches' precise figure but not the hot methods or call trees, and EventPipe's CPU left out the GC
/// pauses its tags held. On both golden recordings (Tests/Fixtures/Golden), through the command line's own exporters:
/// JSON, the text tables, the HTML page's call trees and the speedscope files.
/// </summary>
public sealed class ChargeInvariantTests
{
    private const double Tolerance = 1e-6;

    [Theory]
    [InlineData("kernel-session")]
    [InlineData("eventpipe-only")]
    public void Every_output_adds_up_to_the_runs_cpu(string recording)
    {
        var dir = Repo.NewTempDir("invariant");
        try
        {
            EveryOutputAddsUp(Repo.CopyGoldenRecording(recording, dir), dir, minMeasuredRuns: 18); // 3 serializers x 2 operations x 3 runs
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }

    /// <summary>
    /// The same for concurrent runs (--threads 4: every crew thread's samples charged inside the window, issue 42),
    /// on a fresh recording of the real benchmark: per run CPU is its tags' sum, the text's CPU ms is the runs' CPU per
    /// call (Ops x threads), and the call trees and speedscope files hold the runs' CPU over all their threads.
    /// </summary>
    [Fact, EndToEnd]
    public void Every_output_adds_up_for_concurrent_runs()
    {
        var dir = Repo.NewTempDir("invariant-threads");
        try
        {
            var (exit, folder) = Recording.Record(Path.Combine(dir, "trace"), "--test", "deserialize", "--threads", "4", "--n", "10", "--runs", "3",
                "--warmup-max-ms", "1000", "--serializers", "DataContract,ServiceStack.Text");
            Assert.Equal(0, exit);
            var calls = EveryOutputAddsUp(folder.Path, dir, minMeasuredRuns: 6);
            Assert.True(calls.Count > 0 && calls.All(c => c.Value == 4), $"calls per operation: {string.Join(", ", calls)}");
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }

    /// <returns>Per measured run, its calls per operation (its crew's size, or 1).</returns>
    private static List<KeyValuePair<string, double>> EveryOutputAddsUp(string zip, string dir, int minMeasuredRuns)
    {
        var callsPerOperation = new List<KeyValuePair<string, double>>();
        {
            var speedscope = Path.Combine(dir, "speedscope");
            var outcome = InProcessEsp.Run(TimeSpan.FromMinutes(3), "analyze", zip, "--format", "json", "--speedscope", speedscope, "--no-cache");
            Assert.True(outcome.ExitCode == 0, outcome.StdErr);
            using var json = JsonDocument.Parse(outcome.StdOut);
            var measured = new Dictionary<(string, string, int), double>();
            var perOperation = new Dictionary<(string, string, int), List<double>>();
            var operations = new Dictionary<(string, string, int), double>();
            var runs = 0;
            foreach (var run in json.RootElement.GetProperty("runs").EnumerateArray())
            {
                var cpu = run.GetProperty("cpuMs").GetDouble();
                var tags = run.GetProperty("tags").EnumerateObject().Sum(t => t.Value.GetDouble());
                // The JSON rounds each tag to 0.1 us.
                Assert.True(Math.Abs(cpu - tags) < 1e-3, $"run {run}: cpuMs {cpu} vs tags {tags}");
                if (run.GetProperty("warmup").GetBoolean()) continue;
                var key = Key(run);
                measured[key] = measured.GetValueOrDefault(key) + cpu;
                // Per call: a --threads run's calls are its operations on every crew thread (JSON "calls", only on such runs).
                var calls = run.TryGetProperty("calls", out var c) ? c.GetDouble() : run.GetProperty("operations").GetDouble();
                callsPerOperation.Add(new($"{key} run {run.GetProperty("run").GetInt32()}", calls / run.GetProperty("operations").GetDouble()));
                (perOperation.TryGetValue(key, out var list) ? list : perOperation[key] = []).Add(cpu / calls);
                operations[key] = operations.GetValueOrDefault(key) + calls;
                runs++;
            }
            Assert.True(runs >= minMeasuredRuns, $"{runs} measured runs");

            foreach (var ((serializer, operation, objects), cpu) in measured)
            {
                var file = Path.Combine(speedscope, RunStackCollector.SpeedscopeFileName(serializer, operation, objects));
                if (cpu == 0) continue;
                // Summed in another order over thousands of samples: CI saw 0.002 ms apart on 107 ms of concurrent runs.
                Assert.True(Math.Abs(cpu - SpeedscopeCoveredMs(file)) < 1e-3 + 1e-4 * cpu, $"{serializer} {operation}: runs {cpu} ms, speedscope {SpeedscopeCoveredMs(file)} ms");
            }

            // The text tables (what a terminal shows) and the HTML page's call trees, from one more analysis.
            var html = Path.Combine(dir, "report.html");
            var page = InProcessEsp.Run(TimeSpan.FromMinutes(3), "analyze", zip, "--html", html, "--tables", "all", "--no-cache");
            Assert.True(page.ExitCode == 0, page.StdErr);
            TextAddsUp(page.StdOut, measured, perOperation, operations);
            HtmlCallTreesAddUp(File.ReadAllText(html), measured);

            var input = TraceInput.Open(zip);
            using (input)
            {
                var analysis = new TraceAnalyzer(new AnalyzerOptions { CacheEtlx = false }).Analyze(input);
                var stacks = RunStackCollector.Collect(analysis);
                foreach (var profile in stacks.Profiles)
                {
                    var cpu = measured.GetValueOrDefault((profile.Serializer, profile.Operation, profile.Objects));
                    Assert.True(Math.Abs(cpu - profile.Tree.TotalMs) < Tolerance, $"{profile.Serializer} {profile.Operation}: runs {cpu} ms, call tree {profile.Tree.TotalMs} ms");
                }
                Assert.Equal(measured.Count(m => m.Value > 0), stacks.Profiles.Count(p => p.Tree.TotalMs > 0));
            }

            // Without --html or --speedscope the charged samples are not kept (AnalyzerOptions.KeepChargedSamples):
            // the same figures, and no call trees.
            var tablesOnly = InProcessEsp.Run(TimeSpan.FromMinutes(3), "analyze", zip, "--format", "json", "--no-cache");
            Assert.True(tablesOnly.ExitCode == 0, tablesOnly.StdErr);
            using var lean = JsonDocument.Parse(tablesOnly.StdOut);
            foreach (var part in new[] { "runs", "serializers", "findings" })
                Assert.Equal(json.RootElement.GetProperty(part).GetRawText(), lean.RootElement.GetProperty(part).GetRawText());
            using (var again = TraceInput.Open(zip))
                Assert.Null(new TraceAnalyzer(new AnalyzerOptions { CacheEtlx = false, KeepChargedSamples = false }).Analyze(again).Samples);
        }
        return callsPerOperation;
    }

    /// <summary>
    /// Hot methods per serializer, operation and N (keyed as the per-operation tables), in every format: the JSON, CSV,
    /// text, Markdown and HTML tables give the same rows and figures; each table's whole is its measured runs' CPU (the
    /// runs' own figures, in the same JSON); no sample is exclusive in two rows, so the rows' exclusive times (all of
    /// them, not only the top) add up to the charge's ledger of the same samples, at most the CPU; and the callers listed
    /// under a row of unnamed code are a breakdown of it, never a row beside it.
    /// </summary>
    [Theory]
    [InlineData("kernel-session")]
    [InlineData("eventpipe-only")]
    public void Every_format_gives_the_same_hot_methods_per_N_and_no_sample_counts_twice(string recording)
    {
        const int Top = 15;
        var dir = Repo.NewTempDir("invariant-hot");
        try
        {
            var zip = Repo.CopyGoldenRecording(recording, dir);
            string Esp(string format, params string[] more)
            {
                var outcome = InProcessEsp.Run(TimeSpan.FromMinutes(3), "analyze", [zip, "--format", format, "--top", Fmt.Int(Top), "--no-cache", .. more]);
                Assert.True(outcome.ExitCode == 0, outcome.StdErr);
                return outcome.StdOut.ReplaceLineEndings("\n");
            }
            using var json = JsonDocument.Parse(Esp("json"));
            var cpu = new Dictionary<(string, string, int), double>();
            foreach (var run in json.RootElement.GetProperty("runs").EnumerateArray())
                if (!run.GetProperty("warmup").GetBoolean() && !run.GetProperty("outlier").GetBoolean())
                    cpu[Key(run)] = cpu.GetValueOrDefault(Key(run)) + run.GetProperty("cpuMs").GetDouble();

            using var input = TraceInput.Open(zip);
            var analysis = new TraceAnalyzer(new AnalyzerOptions { CacheEtlx = false, CollectHotMethods = true }).Analyze(input);
            Assert.Equal(cpu.Where(c => c.Value > 0).Select(c => c.Key).Order(), analysis.HotMethods.Keys.Order());
            foreach (var (key, methods) in analysis.HotMethods)
            {
                var exclusive = methods.Values.Sum(m => m.ExclusiveMs);
                var ledger = analysis.Samples!.RunSamples
                    .Where(s => s.Run is { IsMeasured: true } r && (r.Key.Serializer, r.Key.Operation, r.Key.Objects) == key && !s.Pause && s.Frames.Length > 0).Sum(s => s.WeightMs);
                Assert.True(Math.Abs(exclusive - ledger) < 1e-6, $"{key}: hot methods' exclusive {exclusive} ms, the ledger's samples {ledger} ms");
                Assert.True(exclusive <= cpu[key] + 1e-6, $"{key}: hot methods' exclusive {exclusive} ms > the runs' CPU {cpu[key]} ms");
                Assert.DoesNotContain(methods.Keys, k => k.Contains("called from", StringComparison.Ordinal));
                foreach (var m in methods.Values)
                {
                    Assert.True(m.ExclusiveMs <= m.InclusiveMs + 1e-9 && m.InclusiveMs <= cpu[key] + 1e-6, $"{key} {m.Name}: {m.ExclusiveMs} / {m.InclusiveMs} ms");
                    Assert.True(m.CalledFrom.Sum(c => c.ExclusiveMs) <= m.ExclusiveMs + 1e-9, $"{key} {m.Name}: callers add up to more than the row");
                }
            }
            Assert.Contains(analysis.HotMethods.Values, m => m.Values.Any(r => r.CalledFrom.Count > 0)); // the split is exercised

            var groups = HotMethodReport.Groups(analysis, Top);
            Assert.Equal(analysis.HotMethods.Count, groups.Count);
            HotJsonAddsUp(json.RootElement.GetProperty("hotMethods"), groups, cpu);
            HotCsvAddsUp(Esp("csv"), groups);
            HotTextAddsUp(Esp("text", "--tables", "all"), groups, cpu); // names in full (the terminal's compact tables shorten them)
            var tables = HotMethodReport.Tables(analysis, Top).ToList();
            var markdown = Esp("markdown");
            foreach (var table in tables) Assert.Contains(Markdown.Table(table), markdown, StringComparison.Ordinal);
            var html = Path.Combine(dir, "report.html");
            Esp("text", "--html", html);
            var page = File.ReadAllText(html);
            foreach (var g in groups) // the HTML page's tables section: its own top 15, the same rows
                Assert.Contains(System.Net.WebUtility.HtmlEncode(tables[groups.ToList().IndexOf(g)].Title), page, StringComparison.Ordinal);
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }

    /// <summary>JSON `hotMethods`: one entry per table, its CPU the runs', its rows and callers the analysis's (rounded to 0.1 us), adding up.</summary>
    private static void HotJsonAddsUp(JsonElement hot, IReadOnlyList<HotMethodReport.Group> groups, Dictionary<(string, string, int), double> cpu)
    {
        Assert.Equal(groups.Count, hot.GetArrayLength());
        foreach (var (g, e) in groups.Zip(hot.EnumerateArray()))
        {
            var key = Key(e);
            Assert.Equal((g.Serializer, g.Operation, g.Objects), key);
            Assert.True(Math.Abs(cpu[key] - e.GetProperty("cpuMs").GetDouble()) < 1e-6, $"{key}: hotMethods cpuMs vs the runs'");
            var methods = e.GetProperty("methods").EnumerateArray().ToList();
            Assert.Equal(g.Rows.Select(r => r.Method.Name), methods.Select(m => m.GetProperty("method").GetString()));
            // Rounded to 4 decimals each: the top rows add up to at most the CPU within that rounding.
            Assert.True(methods.Sum(m => m.GetProperty("exclusiveMs").GetDouble()) <= cpu[key] + methods.Count * 5e-5, $"{key}: JSON exclusive sums past the CPU");
            foreach (var (row, m) in g.Rows.Zip(methods))
            {
                Assert.Equal(Math.Round(row.Method.ExclusiveMs, 4), m.GetProperty("exclusiveMs").GetDouble());
                if (!m.TryGetProperty("calledFrom", out var callers)) { Assert.Empty(row.Method.CalledFrom); continue; }
                Assert.Equal(row.Callers.Select(c => (c.Caller, c.Work, Math.Round(c.ExclusiveMs, 4))),
                    callers.EnumerateArray().Select(c => (c.GetProperty("caller").GetString()!, c.GetProperty("work").GetString()!, c.GetProperty("exclusiveMs").GetDouble())));
                var split = callers.EnumerateArray().Sum(c => c.GetProperty("exclusiveMs").GetDouble()) + m.GetProperty("otherCallersMs").GetDouble();
                Assert.True(split <= m.GetProperty("exclusiveMs").GetDouble() + (callers.GetArrayLength() + 2) * 5e-5, $"{key} {row.Method.Name}: calledFrom {split} ms past the row");
            }
        }
    }

    /// <summary>CSV with --top: the runs, then the hot methods, a line per row and per caller under it, at 3 decimals.</summary>
    private static void HotCsvAddsUp(string csv, IReadOnlyList<HotMethodReport.Group> groups)
    {
        var blocks = EtwSerializerProfiler.Tests.Analyzer.Export.ExportersTests.SplitRecords(csv);
        Assert.Equal(2, blocks.Count);
        var records = blocks[1];
        var header = records[0].ToList();
        string Cell(IReadOnlyList<string> r, string column) => r[header.IndexOf(column)];
        var expected = groups.SelectMany(g => g.Rows.SelectMany(r => new[] { (g.Serializer, g.Operation, g.Objects, r.Method.Name, "", Fmt.Num(r.Method.ExclusiveMs, "F3")) }
            .Concat(r.Callers.Select(c => (g.Serializer, g.Operation, g.Objects, r.Method.Name, c.Caller, Fmt.Num(c.ExclusiveMs, "F3"))))
            .Concat(r.OtherCallers > 0 ? [(g.Serializer, g.Operation, g.Objects, r.Method.Name, $"({r.OtherCallers} other callers)", Fmt.Num(r.OtherCallersMs, "F3"))] : []))).ToList();
        Assert.Equal(expected, records.Skip(1).Select(r => (Cell(r, "serializer"), Cell(r, "operation"), Cell(r, "objects") is { Length: > 0 } n ? int.Parse(n, System.Globalization.CultureInfo.InvariantCulture) : 0,
            Cell(r, "method"), Cell(r, "calledFrom"), Cell(r, "exclusiveMs"))));
    }

    /// <summary>
    /// The terminal's hot-method tables, one per serializer, operation and N: the title's CPU is the runs' CPU, the rows
    /// and their callers ("└", indented under their row) the analysis's, and from the printed figures alone the rows add
    /// up to at most the CPU and the callers to at most their row, within the rounding of what is printed.
    /// </summary>
    private static void HotTextAddsUp(string text, IReadOnlyList<HotMethodReport.Group> groups, Dictionary<(string, string, int), double> cpu)
    {
        var lines = text.Split('\n');
        static double HalfUnit(double v) => v >= 100 ? 0.05 : v >= 1 ? 0.005 : 0.0005;
        static double Num(string cell) => double.Parse(cell, System.Globalization.CultureInfo.InvariantCulture);
        foreach (var g in groups)
        {
            var key = (g.Serializer, g.Operation, g.Objects);
            var at = Array.FindIndex(lines, l => l.StartsWith($"{g.Serializer} {g.Operation}{Fmt.NSuffix(g.Objects)}: top ", StringComparison.Ordinal));
            Assert.True(at >= 0, $"{key}: no hot-method table");
            var title = System.Text.RegularExpressions.Regex.Match(lines[at], @"\(([0-9]+) measured runs; shares of ([0-9.]+) ms of CPU\)$");
            Assert.True(title.Success, lines[at]);
            Assert.Equal(Fmt.Ms(cpu[key]), title.Groups[2].Value);
            var rows = new List<(string Name, string Ms)>();
            for (var i = at + 3; i < lines.Length && lines[i].Length > 0 && !lines[i].StartsWith("  └ rows:", StringComparison.Ordinal); i++)
            {
                var cells = System.Text.RegularExpressions.Regex.Split(lines[i].TrimEnd(), @"\s{2,}");
                rows.Add(lines[i].StartsWith(HotMethodReport.ChildMark, StringComparison.Ordinal) ? ("  " + cells[1], cells[2]) : (cells[0], cells[1]));
            }
            var expected = g.Rows.SelectMany(r => new[] { (r.Method.Name, Fmt.Ms(r.Method.ExclusiveMs)) }
                .Concat(r.Callers.Select(c => (HotMethodReport.ChildMark + c.Display, Fmt.Ms(c.ExclusiveMs))))
                .Concat(r.OtherCallers > 0 ? [($"{HotMethodReport.ChildMark}{r.OtherCallers} other callers", Fmt.Ms(r.OtherCallersMs))] : [])).ToList();
            Assert.Equal(expected, rows);
            var top = rows.Where(r => !r.Name.StartsWith(HotMethodReport.ChildMark, StringComparison.Ordinal)).Select(r => Num(r.Ms)).ToList();
            Assert.True(top.Sum() <= Num(title.Groups[2].Value) + HalfUnit(cpu[key]) + top.Sum(HalfUnit), $"{key}: the printed Exclusive column adds up to {top.Sum()} of {title.Groups[2].Value} ms");
            for (var i = 0; i < rows.Count; i++)
            {
                if (rows[i].Name.StartsWith(HotMethodReport.ChildMark, StringComparison.Ordinal)) continue;
                var children = rows.Skip(i + 1).TakeWhile(r => r.Name.StartsWith(HotMethodReport.ChildMark, StringComparison.Ordinal)).Select(r => Num(r.Ms)).ToList();
                Assert.True(children.Sum() <= Num(rows[i].Ms) + HalfUnit(Num(rows[i].Ms)) + children.Sum(HalfUnit), $"{key} {rows[i].Name}: its callers add up to {children.Sum()} ms");
            }
        }
    }

    /// <summary>
    /// The text's per-serializer tables: "CPU ms" (per operation) is the mean of the measured runs' CPU per call (an
    /// operation of a --threads T run is T calls); in "where the time goes" (on the terminal with on-CPU sources only)
    /// "On-CPU ms" is the measured runs' CPU over their calls (the tags' sums, which the JSON holds equal to the CPU), and the tag groups add up to it
    /// within the rounding of what is printed.
    /// </summary>
    private static void TextAddsUp(string text, Dictionary<(string, string, int), double> measured, Dictionary<(string, string, int), List<double>> perOperation,
        Dictionary<(string, string, int), double> operations)
    {
        var checkedRows = 0;
        var groupsChecked = 0;
        string? operation = null;
        string[]? header = null;
        var groups = false;
        foreach (var line in text.Split('\n'))
        {
            if (System.Text.RegularExpressions.Regex.Match(line, @"^(serialize|deserialize): (per serializer|where the time goes)") is { Success: true } title)
            {
                (operation, groups, header) = (title.Groups[1].Value, title.Groups[2].Value == "where the time goes", null);
                continue;
            }
            if (operation is null) continue;
            if (line.Length == 0) { operation = null; continue; }
            var cells = System.Text.RegularExpressions.Regex.Split(line.Trim(), @"\s{2,}");
            if (header is null) { header = cells; continue; }
            if (line.StartsWith("---", StringComparison.Ordinal) || cells.Length != header.Length) continue;
            var key = (cells[0], operation, int.Parse(cells[Array.IndexOf(header, "N")], System.Globalization.CultureInfo.InvariantCulture));
            if (!groups)
            {
                var cpu = double.Parse(cells[Array.IndexOf(header, "CPU ms")], System.Globalization.CultureInfo.InvariantCulture);
                var expected = perOperation[key].Average();
                Assert.True(Fmt.Ms(expected) == cells[Array.IndexOf(header, "CPU ms")], $"{key}: text CPU ms {cpu}, runs {expected}");
                checkedRows++;
                continue;
            }
            var onCpuCell = cells[Array.IndexOf(header, "On-CPU ms")];
            Assert.True(Fmt.Ms(measured.GetValueOrDefault(key) / operations[key]) == onCpuCell, $"{key}: text On-CPU ms {onCpuCell}, runs {measured.GetValueOrDefault(key) / operations[key]}");
            if (measured.GetValueOrDefault(key) <= 0) { groupsChecked++; continue; } // the groups print "-"
            var onCpu = double.Parse(onCpuCell, System.Globalization.CultureInfo.InvariantCulture);
            var from = Array.IndexOf(header, "Serializer code");
            var parts = header.Skip(from).TakeWhile(h => h != "Unnamed").Select((_, i) => double.Parse(cells[from + i].Split(' ')[0], System.Globalization.CultureInfo.InvariantCulture)).ToList();
            // Fmt.Ms: 3 decimals under 1 ms, 2 under 100 ms, 1 above: half a unit of the last digit each.
            static double HalfUnit(double v) => v >= 100 ? 0.05 : v >= 1 ? 0.005 : 0.0005;
            var rounding = HalfUnit(onCpu) + parts.Sum(HalfUnit);
            Assert.True(Math.Abs(parts.Sum() - onCpu) <= rounding + 1e-9, $"{key}: tag groups {parts.Sum()} vs on-CPU {onCpu}");
            groupsChecked++;
        }
        Assert.Equal(measured.Count, checkedRows);
        Assert.Equal(text.Contains(": where the time goes", StringComparison.Ordinal) ? measured.Count : 0, groupsChecked);
    }

    /// <summary>Each HTML call tree's caption gives its total: the measured runs' CPU of its serializer and operation.</summary>
    private static void HtmlCallTreesAddUp(string html, Dictionary<(string, string, int), double> measured)
    {
        var trees = System.Text.RegularExpressions.Regex.Matches(html,
            @"<details class=""call-tree"" id=""[^""]+"" data-serializer=""([^""]+)"" data-operation=""([^""]+)"" data-objects=""([0-9]+)"">.*?, ([0-9.]+) ms sampled", System.Text.RegularExpressions.RegexOptions.Singleline);
        Assert.Equal(measured.Count(m => m.Value > 0), trees.Count); // a tree is drawn where there is time (RunStackCollector)
        foreach (System.Text.RegularExpressions.Match tree in trees)
        {
            var key = (System.Net.WebUtility.HtmlDecode(tree.Groups[1].Value), tree.Groups[2].Value, int.Parse(tree.Groups[3].Value, System.Globalization.CultureInfo.InvariantCulture));
            Assert.True(Fmt.Ms(measured[key]) == tree.Groups[4].Value, $"{key}: HTML call tree {tree.Groups[4].Value} ms, runs {measured[key]} ms");
        }
    }

    /// <summary>A run's (serializer, operation, N) in the JSON, as the per-operation tables key their rows (N 0 when the case has none).</summary>
    private static (string, string, int) Key(JsonElement e) =>
        (e.GetProperty("serializer").GetString()!, e.GetProperty("operation").GetString()!, e.GetProperty("objects").ValueKind == JsonValueKind.Null ? 0 : e.GetProperty("objects").GetInt32());

    /// <summary>The time some frame is open in the file's evented profiles: the weight TraceEvent's writer lays out.</summary>
    private static double SpeedscopeCoveredMs(string file)
    {
        using var doc = JsonDocument.Parse(File.ReadAllBytes(file));
        var total = 0.0;
        foreach (var profile in doc.RootElement.GetProperty("profiles").EnumerateArray())
        {
            var depth = 0;
            var openedAt = 0.0;
            foreach (var e in profile.GetProperty("events").EnumerateArray())
            {
                var at = e.GetProperty("at").GetDouble();
                if (e.GetProperty("type").GetString() == "O") { if (depth++ == 0) openedAt = at; }
                else if (--depth == 0) total += at - openedAt;
            }
        }
        return total;
    }
}
