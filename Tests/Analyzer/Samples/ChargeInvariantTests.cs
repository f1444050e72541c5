using System.Text.Json;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Processing;
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
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
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
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
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
            var measured = new Dictionary<(string, string), double>();
            var perOperation = new Dictionary<(string, string), List<double>>();
            var operations = new Dictionary<(string, string), double>();
            var runs = 0;
            foreach (var run in json.RootElement.GetProperty("runs").EnumerateArray())
            {
                var cpu = run.GetProperty("cpuMs").GetDouble();
                var tags = run.GetProperty("tags").EnumerateObject().Sum(t => t.Value.GetDouble());
                // The JSON rounds each tag to 0.1 us.
                Assert.True(Math.Abs(cpu - tags) < 1e-3, $"run {run}: cpuMs {cpu} vs tags {tags}");
                if (run.GetProperty("warmup").GetBoolean()) continue;
                var key = (run.GetProperty("serializer").GetString()!, run.GetProperty("operation").GetString()!);
                measured[key] = measured.GetValueOrDefault(key) + cpu;
                // Per call: a --threads run's calls are its operations on every crew thread (JSON "calls", only on such runs).
                var calls = run.TryGetProperty("calls", out var c) ? c.GetDouble() : run.GetProperty("operations").GetDouble();
                callsPerOperation.Add(new($"{key} run {run.GetProperty("run").GetInt32()}", calls / run.GetProperty("operations").GetDouble()));
                (perOperation.TryGetValue(key, out var list) ? list : perOperation[key] = []).Add(cpu / calls);
                operations[key] = operations.GetValueOrDefault(key) + calls;
                runs++;
            }
            Assert.True(runs >= minMeasuredRuns, $"{runs} measured runs");

            foreach (var ((serializer, operation), cpu) in measured)
            {
                var file = Path.Combine(speedscope, RunStackCollector.SpeedscopeFileName(serializer, operation));
                if (cpu == 0) continue;
                Assert.True(Math.Abs(cpu - SpeedscopeCoveredMs(file)) < 1e-3, $"{serializer} {operation}: runs {cpu} ms, speedscope {SpeedscopeCoveredMs(file)} ms");
            }

            // The text tables (what a terminal shows) and the HTML page's call trees, from one more analysis.
            var html = Path.Combine(dir, "report.html");
            var page = InProcessEsp.Run(TimeSpan.FromMinutes(3), "analyze", zip, "--html", html, "--no-cache");
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
                    var cpu = measured.GetValueOrDefault((profile.Serializer, profile.Operation));
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
    /// The text's per-serializer tables: "CPU ms" (per operation) is the mean of the measured runs' CPU per call (an
    /// operation of a --threads T run is T calls); in "where the time goes" (on the terminal with on-CPU sources only)
    /// "On-CPU ms" is the measured runs' CPU over their calls (the tags' sums, which the JSON holds equal to the CPU), and the tag groups add up to it
    /// within the rounding of what is printed.
    /// </summary>
    private static void TextAddsUp(string text, Dictionary<(string, string), double> measured, Dictionary<(string, string), List<double>> perOperation,
        Dictionary<(string, string), double> operations)
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
            var key = (cells[0], operation);
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
    private static void HtmlCallTreesAddUp(string html, Dictionary<(string, string), double> measured)
    {
        var trees = System.Text.RegularExpressions.Regex.Matches(html,
            @"<div class=""call-tree"" data-serializer=""([^""]+)"" data-operation=""([^""]+)"">.*?, ([0-9.]+) ms sampled", System.Text.RegularExpressions.RegexOptions.Singleline);
        Assert.Equal(measured.Count(m => m.Value > 0), trees.Count); // a tree is drawn where there is time (RunStackCollector)
        foreach (System.Text.RegularExpressions.Match tree in trees)
        {
            var key = (System.Net.WebUtility.HtmlDecode(tree.Groups[1].Value), tree.Groups[2].Value);
            Assert.True(Fmt.Ms(measured[key]) == tree.Groups[3].Value, $"{key}: HTML call tree {tree.Groups[3].Value} ms, runs {measured[key]} ms");
        }
    }

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
