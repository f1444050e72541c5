using System.Text.Json;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Export;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Robustness;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>
/// The verdicts and the terminal's compact output, on the two golden recordings (real traces, checked in): every line
/// fits 120 columns, each verdict's causes add up with the "where the time goes" table they come from (same ms, never
/// more than the case's time), no cause names a tag the tables do not show, and --serializers with --n shows one case.
/// </summary>
public sealed partial class VerdictReportTests
{
    public static TheoryData<string> Recordings => new() { "kernel-session", "eventpipe-only" };

    private static (int Exit, string Out) Analyze(string recording, params string[] extra)
    {
        var dir = Repo.NewTempDir("verdict");
        try
        {
            var zip = Repo.CopyGoldenRecording(recording, dir);
            var outcome = InProcessEsp.Run(TimeSpan.FromMinutes(3), "analyze", [zip, "--no-cache", .. extra]);
            return (outcome.ExitCode, outcome.StdOut.ReplaceLineEndings("\n"));
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }

    [Theory]
    [MemberData(nameof(Recordings))]
    public void The_default_output_starts_with_the_verdicts_and_fits_a_120_column_terminal(string recording)
    {
        // Captured, as piped: the same text a terminal gets.
        var (exit, text) = Analyze(recording);
        Assert.Equal(0, exit);
        var lines = text.TrimEnd('\n').Split('\n');
        Assert.StartsWith("Why each case takes its time", lines[0], StringComparison.Ordinal);
        Assert.All(lines, l => Assert.True(l.Length <= 120, $"{l.Length} columns: {l}"));
        Assert.Contains(lines, l => l.StartsWith("  1. ", StringComparison.Ordinal));
        Assert.Contains("Every table and note in full: --tables all", text, StringComparison.Ordinal); // 6 cases: every verdict shown
        // The wide tables are one option away, not gone.
        Assert.DoesNotContain("mean of measured runs", text, StringComparison.Ordinal);
        Assert.Contains("mean of measured runs", Analyze(recording, "--tables", "all").Out, StringComparison.Ordinal);
    }

    [Fact]
    public void A_case_alone_at_its_operation_and_N_is_not_called_the_fastest()
    {
        var (exit, text) = Analyze("kernel-session", "--serializers", "Reflection");
        Assert.Equal(0, exit);
        var heads = text.Split('\n').Where(l => VerdictHead().IsMatch(l)).ToList();
        Assert.NotEmpty(heads);
        Assert.All(heads, h => Assert.DoesNotContain("fastest", h, StringComparison.Ordinal));
        // Among others, the fastest is still named.
        Assert.Contains(", the fastest", Analyze("kernel-session").Out, StringComparison.Ordinal);
    }

    [Fact]
    public void Top_methods_fit_the_terminal_by_their_short_names_and_keep_full_ones_in_every_table()
    {
        var (exit, text) = Analyze("kernel-session", "--top", "15");
        Assert.Equal(0, exit);
        var lines = text.TrimEnd('\n').Split('\n');
        Assert.All(lines, l => Assert.True(l.Length <= 120, $"{l.Length} columns: {l}"));
        // The same rows, named without namespaces: "Module!Type.Method" where --tables all names it in full.
        Assert.Contains(lines, l => l.StartsWith("SerializerBenchmark!ReflectionSerializer.", StringComparison.Ordinal));
        Assert.Contains("SerializerBenchmark!EtwSerializerProfiler.Benchmark.Serializers.ReflectionSerializer.", Analyze("kernel-session", "--top", "15", "--tables", "all").Out, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Recordings))]
    public void Each_cause_is_a_group_of_the_tables_in_the_same_ms_and_the_causes_never_exceed_the_case(string recording)
    {
        var (exit, json) = Analyze(recording, "--format", "json");
        Assert.Equal(0, exit);
        using var doc = JsonDocument.Parse(json);
        var serializers = doc.RootElement.GetProperty("serializers").EnumerateArray().ToList();
        var verdicts = doc.RootElement.GetProperty("verdicts").EnumerateArray().ToList();
        Assert.Equal(serializers.Count, verdicts.Count);
        foreach (var v in verdicts)
        {
            var onCpu = v.GetProperty("onCpuMs").GetDouble();
            var off = v.GetProperty("offCpuMs").GetDouble() + v.GetProperty("otherThreadsMs").GetDouble();
            var causes = v.GetProperty("causes").EnumerateArray().ToList();
            Assert.InRange(causes.Count, 1, 3);
            // One line per cause: no two share a name (a serializer's dynamic methods join its own namespace's code).
            Assert.Equal(causes.Count, causes.Select(c => c.GetProperty("name").GetString()).Distinct().Count());
            Assert.True(causes.Sum(c => c.GetProperty("ms").GetDouble()) <= onCpu + off + 1e-3); // the JSON rounds each cause to 4 places
            var ms = causes.Select(c => c.GetProperty("ms").GetDouble()).ToList();
            Assert.Equal(ms.OrderByDescending(x => x), ms);
            var row = serializers.Single(s => s.GetProperty("serializer").GetString() == v.GetProperty("serializer").GetString()
                && s.GetProperty("operation").GetString() == v.GetProperty("operation").GetString()
                && s.GetProperty("objects").GetInt32() == v.GetProperty("objects").GetInt32());
            // The verdict's off-CPU time and its wait for a CPU are the table's off-CPU time, split (kernel session).
            if (row.GetProperty("offCpuMs").ValueKind == JsonValueKind.Number)
                Assert.Equal(row.GetProperty("offCpuMs").GetDouble(), v.GetProperty("offCpuMs").GetDouble() + v.GetProperty("cpuWaitMs").GetDouble(), 1e-9);
            else Assert.Equal(0, v.GetProperty("cpuWaitMs").GetDouble());
            // CPU causes add up to the tags they name, as the case's tag table has them (ms per call): a tag group is one
            // cause, or (own code by namespace, untagged code by library) several that share its tags. The top three
            // of a split group may leave some out, so a split group adds up to at most its tags.
            var tags = row.GetProperty("tags");
            foreach (var g in causes.Where(c => c.GetProperty("tags").GetArrayLength() > 0)
                         .GroupBy(c => string.Join("|", c.GetProperty("tags").EnumerateArray().Select(t => t.GetString()))))
            {
                var named = g.First().GetProperty("tags").EnumerateArray().Select(t => t.GetString()!).ToList();
                Assert.All(named, t => Assert.True(tags.TryGetProperty(t, out _), $"cause {g.First().GetProperty("name")} names tag {t}, not in the tables"));
                var tagMs = named.Sum(t => tags.GetProperty(t).GetDouble());
                var causeMs = g.Sum(c => c.GetProperty("ms").GetDouble());
                var split = g.Count() > 1 || g.First().GetProperty("ownCode").GetBoolean() || named.Contains("Other") || named.Any(t => t.StartsWith("Test ", StringComparison.Ordinal));
                if (split) Assert.True(causeMs <= tagMs + 1e-3, $"{g.Key}: causes {causeMs} over their tags' {tagMs}");
                else Assert.Equal(tagMs, causeMs, 0.0005 + 1e-3 * causeMs);
            }
        }
    }

    /// <summary>
    /// YamlDotNet reads custom attributes per property (the seeds' finding): its serialize verdict names the lookups
    /// down to the method of YamlDotNet that makes them. On this short recording (N=300, tier-0 code) they sit under
    /// the native runtime; the default recording's N=10,000 verdict puts them first (README).
    /// </summary>
    [Fact]
    public void YamlDotNets_verdict_names_its_custom_attribute_lookups_and_who_makes_them()
    {
        var (exit, json) = Analyze("kernel-session", "--format", "json", "--serializers", "YamlDotNet");
        Assert.Equal(0, exit);
        using var doc = JsonDocument.Parse(json);
        var serialize = doc.RootElement.GetProperty("verdicts").EnumerateArray().Single(v => v.GetProperty("operation").GetString() == "serialize");
        var details = serialize.GetProperty("causes").EnumerateArray().SelectMany(c => c.GetProperty("detail").EnumerateArray().Select(d => d.GetString()!)).ToList();
        Assert.Contains(details, d => d.Contains("GetCustomAttributes from ", StringComparison.Ordinal) && d.Contains("GetCustomAttribute", StringComparison.Ordinal));
    }

    [Fact]
    public void Serializers_and_n_show_one_case()
    {
        var (exit, text) = Analyze("kernel-session", "--serializers", "YamlDotNet", "--n", "300");
        Assert.Equal(0, exit);
        var heads = text.Split('\n').Where(l => l.Length > 0 && !l.StartsWith(' ') && l.Contains(" ms/op", StringComparison.Ordinal)).ToList();
        Assert.Equal(["YamlDotNet serialize N=300", "YamlDotNet deserialize N=300"], heads.Select(h => h[..h.IndexOf(':', StringComparison.Ordinal)]));
        var (missing, _) = Analyze("kernel-session", "--n", "7");
        Assert.NotEqual(0, missing);
    }

    /// <summary>
    /// The default benchmark's size (<see cref="SixtyCases"/>): the terminal's text has 8 verdicts, a row per case, and
    /// fits 120 lines of 120 columns (the README's first command: 150 in all, its recording's lines too).
    /// </summary>
    [Fact]
    public void Sixty_cases_fit_120_lines_of_120_columns_with_a_row_each()
    {
        var model = SixtyCases.Model;
        Assert.Equal(60, CaseSummary.From(model.Runs).Count);
        var lines = Exporters.Render(AnalysisReport.Document(model, tables: ReportTables.Compact), TableFormat.Text).ReplaceLineEndings("\n").TrimEnd('\n').Split('\n');
        Assert.True(lines.Length <= 120, $"{lines.Length} lines:\n{string.Join('\n', lines)}");
        Assert.All(lines, l => Assert.True(l.Length <= 120, $"{l.Length} columns: {l}"));
        Assert.Equal(Verdicts.MaxShown, lines.Count(l => VerdictHead().IsMatch(l)));
        Assert.Contains($"{60 - Verdicts.MaxShown} more verdicts, every table and note in full: --tables all, --html F, --format json", lines);
        // A row per case under each table's dashes, with its tracing cost.
        var rows = lines.Select((l, i) => (l, i)).Where(x => x.l.StartsWith("---", StringComparison.Ordinal))
            .SelectMany(x => lines.Skip(x.i + 1).TakeWhile(l => l.Length > 0 && !l.StartsWith(' '))).ToList();
        Assert.Equal(60, rows.Count);
        Assert.All(rows, r => Assert.Matches(@" [+-]\d+\.\d%~? ", r));
        // --tables all keeps every verdict.
        var all = Exporters.Render(AnalysisReport.Document(model), TableFormat.Text).Split('\n');
        Assert.Equal(60, all.Count(l => VerdictHead().IsMatch(l)));
    }

    [System.Text.RegularExpressions.GeneratedRegex(@"^\S.* N=[\d,]+: [\d.]+ ms/op")]
    private static partial System.Text.RegularExpressions.Regex VerdictHead();

    [Theory]
    [InlineData("System.Int64[]", "System.Int64[]")]
    [InlineData("System.Byte[,]", "System.Byte[,]")]
    [InlineData("Data.Book[][]", "Data.Book[][]")]
    [InlineData("System.String", "System.String")]
    [InlineData("System.Collections.Generic.List`1[System.String]", "Generic.List`1")]
    public void An_allocated_type_keeps_its_array_ranks(string type, string shown) => Assert.Equal(shown, EtwSerializerProfiler.Analyzer.Reports.Verdicts.ShortType(type));

    [Fact]
    public void A_cause_line_drops_the_callers_caller_then_the_api_before_it_cuts()
    {
        string[] sites = ["FieldAccessor.GetValue from ReflectionSerializer.WriteFields (called by BenchmarkRunner.SerializeRun) 0.003 ms",
            "RuntimeType.get_IsGenericType from ReflectionSerializer.WriteValue (called by BenchmarkRunner.SerializeRun) 0.001 ms"];
        // Room for both without the caller's caller.
        Assert.Equal("  2. Reflection 0.007 ms (29%): FieldAccessor.GetValue from ReflectionSerializer.WriteFields 0.003 ms; "
            + "RuntimeType.get_IsGenericType from ReflectionSerializer.WriteValue 0.001 ms", Verdicts.Fit("  2. Reflection 0.007 ms (29%)", sites, 200));
        // Room for the first's caller and figure only: the API goes, the figure stays.
        var head = "  2. Reflection: FieldInfo.GetValue, Type queries 0.007 ms (29%)";
        Assert.Equal(head + ": from ReflectionSerializer.WriteFields 0.003 ms", Verdicts.Fit(head, sites, 120));
        // No room even for that: cut, as before.
        Assert.Equal(head[..57] + "...", Verdicts.Fit(head, sites, 60));
    }

    [Theory]
    [InlineData("Ns.Outer+Inner.Method", "Inner.Method")]
    [InlineData("System.Collections.Generic.List`1[System.__Canon].Add", "List`1.Add")]
    [InlineData("Ns.Dictionary`2<Int32,List`1<String>>.TryInsert", "Dictionary`2.TryInsert")]
    [InlineData("Ns.Outer+<>c__DisplayClass11_1.<Run>b__4", "Outer.<Run>b__4")] // read "c__DisplayClass11_1.b__4"
    [InlineData("Ns.Outer+<>c.<Run>b__0[System.Int32]", "Outer.<Run>b__0")]
    [InlineData("Ns.Type.<Main>g__Local|0_0", "Type.<Main>g__Local|0_0")]
    public void A_method_reads_as_type_and_name(string method, string shown) => Assert.Equal(shown, EtwSerializerProfiler.Analyzer.Reports.Verdicts.Short(method));
}
