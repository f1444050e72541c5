using System.Text.RegularExpressions;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Robustness;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Golden;

/// <summary>
/// The analyzer's outputs on two real recordings, checked in (Tests/Fixtures/Golden, README there), compared with the
/// outputs captured before the core was restructured into stages (issue 21). Any change to a figure shows up here
/// as a diff of the expected file, to be explained in the commit that makes it. To accept a change on purpose:
/// `ESP_UPDATE_GOLDEN=1 dotnet test Tests -c Release --filter FullyQualifiedName~GoldenAnalysisTests`, then read
/// `git diff Tests/Fixtures/Golden`.
/// </summary>
public sealed partial class GoldenAnalysisTests
{
    /// <summary>Each recording and format read both ways: in one raw pass (the default), and converted to .etlx (--etlx), which captured the outputs.</summary>
    public static TheoryData<string, string, bool> Cases => new()
    {
        { "kernel-session", "json", false },
        { "kernel-session", "text", false },
        { "eventpipe-only", "json", false },
        { "eventpipe-only", "text", false },
        { "kernel-session", "json", true },
        { "eventpipe-only", "json", true },
    };

    [Theory]
    [MemberData(nameof(Cases))]
    public void Analysis_equals_the_captured_output(string recording, string format, bool throughEtlx)
    {
        var expectedPath = Repo.Golden($"{recording}.{(format == "text" ? "txt" : format)}");
        var actual = AsReadRaw(Analyze(recording, format, throughEtlx), format, throughEtlx);
        if (Environment.GetEnvironmentVariable("ESP_UPDATE_GOLDEN") == "1" && !throughEtlx)
        {
            File.WriteAllText(expectedPath, actual);
            return;
        }
        var expected = File.ReadAllText(expectedPath).ReplaceLineEndings("\n");
        if (expected == actual) return;
        // The first differing line says more than two 80 KB strings.
        var e = expected.Split('\n');
        var a = actual.Split('\n');
        var line = Enumerable.Range(0, Math.Min(e.Length, a.Length)).FirstOrDefault(i => e[i] != a[i], Math.Min(e.Length, a.Length));
        Assert.Fail($"{recording} ({format}) differs from {expectedPath} at line {line + 1}:\n  expected: {(line < e.Length ? e[line] : "<end>")}\n  actual:   {(line < a.Length ? a[line] : "<end>")}");
    }

    /// <summary>The output says which reader ran (checked here); everything else is the raw pass's file.</summary>
    internal static string AsReadRaw(string output, string format, bool throughEtlx)
    {
        var (json, words) = throughEtlx ? ("\"reader\": \"etlx\"", "read through TraceLog (.etlx)") : ("\"reader\": \"raw\"", "read in one raw pass");
        Assert.Contains(format == "json" ? json : words, output);
        return throughEtlx ? output.Replace(json, "\"reader\": \"raw\"", StringComparison.Ordinal).Replace(words, "read in one raw pass", StringComparison.Ordinal) : output;
    }

    /// <summary>The analysis of a copy of the fixture (the analyzer may write a cache next to its input), volatile parts masked.</summary>
    private static string Analyze(string recording, string format, bool throughEtlx)
    {
        var dir = Repo.NewTempDir("golden");
        try
        {
            var zip = Repo.CopyGoldenRecording(recording, dir);
            // Every table: the terminal's compact default is checked apart (VerdictReportTests).
            string[] args = [zip, "--format", format, "--top", "15", "--tables", "all", "--no-cache", .. throughEtlx ? ["--etlx"] : Array.Empty<string>()];
            var outcome = InProcessEsp.Run(TimeSpan.FromMinutes(3), "analyze", args);
            Assert.True(outcome.ExitCode == 0, $"exit {outcome.ExitCode}: {outcome.StdErr}");
            return Mask(outcome.StdOut.ReplaceLineEndings("\n"), dir);
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }

    /// <summary>
    /// A golden recording (a copy's path) analyzed in this process with <paramref name="options"/>: the JSON report
    /// (every figure at full precision), masked as the captured files are. For tests that hold the figures to one
    /// answer however a stage is cut or timed (KernelChunksTests, RunGcsGoldenTests).
    /// </summary>
    internal static string JsonInProcess(string zip, EtwSerializerProfiler.Analyzer.AnalyzerOptions options, out EtwSerializerProfiler.Analyzer.Model.TraceAnalysis analysis)
    {
        using var input = EtwSerializerProfiler.Analyzer.Input.TraceInput.Open(zip);
        analysis = new EtwSerializerProfiler.Analyzer.Processing.TraceAnalyzer(options).Analyze(input);
        return Mask(EtwSerializerProfiler.Analyzer.Reports.AnalysisReport.Render(analysis, EtwSerializerProfiler.Common.TableFormat.Json, top: 15), Path.GetDirectoryName(zip)!);
    }

    /// <summary>Also for the native esp's outputs (Tests/EndToEnd/NativeBuildTests), held to the same files.</summary>
    internal static string Mask(string text, string dir)
    {
        text = text.Replace(dir, "<dir>", StringComparison.Ordinal);
        text = TempZipDir().Replace(text, "<unzipped>");
        text = AnalysisSeconds().Replace(text, "${name}0");
        return AnalysisTime().Replace(text, "analyzed in <time>");
    }

    [GeneratedRegex(@"/tmp/esp-[0-9]+-[0-9a-f]+-zip")]
    private static partial Regex TempZipDir();

    [GeneratedRegex(@"(?<name>""analysisSeconds"": )[0-9.Ee+-]+")]
    private static partial Regex AnalysisSeconds();

    [GeneratedRegex(@"analyzed in [0-9.]+ ?m?s")]
    private static partial Regex AnalysisTime();
}

/// <summary>
/// The trace's event count the analysis reports (the .etlx keeps every event, the rundown's included) against TraceEvent's
/// raw EventPipe reader counting the same file: a figure the analyzer does not compute itself.
/// </summary>
public sealed class GoldenEventCountTests
{
    [Theory]
    [InlineData("kernel-session")]
    [InlineData("eventpipe-only")]
    public void The_event_count_is_every_event_the_raw_reader_sees(string recording)
    {
        var dir = Repo.NewTempDir("golden-events");
        try
        {
            var zip = Repo.CopyGoldenRecording(recording, dir);
            using var input = EtwSerializerProfiler.Analyzer.Input.TraceInput.Open(zip);
            long raw = 0;
            using (var source = new Microsoft.Diagnostics.Tracing.EventPipeEventSource(input.TracePath))
            {
                source.AllEvents += _ => raw++;
                source.Process();
            }
            var analysis = new EtwSerializerProfiler.Analyzer.Processing.TraceAnalyzer(new EtwSerializerProfiler.Analyzer.AnalyzerOptions { CacheEtlx = false }).Analyze(input);
            Assert.Equal(raw, analysis.Trace.Events);
        }
        finally
        {
            FileCleanup.TryDeleteDirectory(dir);
        }
    }
}
