using System.IO.Compression;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.EndToEnd;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Input;

[EndToEnd]
[Collection(RecordedBenchmarkCollection.Name)]
public sealed class BadInputTests(RecordedBenchmark recorded)
{
    [Fact]
    public void A_missing_file_is_a_one_line_error()
    {
        var ex = Assert.Throws<BadInputException>(() => TraceInput.Open("/no/such/trace.nettrace"));
        Assert.Contains("no such file", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_file_of_the_wrong_format_is_named_as_such()
    {
        var path = Path.Combine(Path.GetTempPath(), $"not-a-trace-{Guid.NewGuid():N}.nettrace");
        File.WriteAllText(path, "this is a text file, not a trace");
        var ex = Assert.Throws<BadInputException>(() => TraceInput.Open(path));
        Assert.Contains("not a .nettrace file", ex.Message, StringComparison.Ordinal);
        File.WriteAllBytes(path, []);
        Assert.Contains("empty file", Assert.Throws<BadInputException>(() => TraceInput.Open(path)).Message, StringComparison.Ordinal);
        File.Delete(path);
    }

    [Fact]
    public void A_truncated_trace_gives_partial_results_or_a_clear_error_never_a_crash()
    {
        var dir = Repo.NewTempDir("trunc");
        var bytes = File.ReadAllBytes(recorded.Folder.Trace);
        var partial = 0;
        // Where runs end in the file depends on the recording (the last ~40% is rundown), so try several cuts.
        foreach (var fraction in new[] { 0.2, 0.35, 0.5, 0.65 })
        {
            var path = Path.Combine(dir, $"cut{fraction}.nettrace");
            File.WriteAllBytes(path, bytes[..(int)(bytes.Length * fraction)]);
            using var input = TraceInput.Open(path);
            try
            {
                var analysis = new TraceAnalyzer(new AnalyzerOptions { CacheEtlx = false }).Analyze(input);
                Assert.Contains(analysis.Warnings, w => w.Contains("abruptly", StringComparison.Ordinal) || w.Contains("rundown", StringComparison.Ordinal));
                Assert.All(analysis.Runs, r => Assert.True(r.EndMs > r.StartMs, "a run without an end must be left out"));
                if (analysis.Runs.Count > 0 && analysis.Runs.Count < recorded.Analysis.Runs.Count) partial++;
            }
            catch (BadInputException ex)
            {
                Assert.Contains("corrupt or truncated", ex.Message, StringComparison.Ordinal);
            }
        }
        Assert.True(partial > 0, "no cut gave partial results: what was before the cut should have been kept");
        Directory.Delete(dir, recursive: true);
    }

    [Fact]
    public void A_zipped_trace_folder_is_accepted()
    {
        var dir = Repo.NewTempDir("zip");
        var zip = Path.Combine(dir, "trace.zip");
        using (var archive = ZipFile.Open(zip, ZipArchiveMode.Create))
        {
            archive.CreateEntryFromFile(recorded.Folder.Trace, "rec/trace.nettrace");
            archive.CreateEntryFromFile(recorded.Folder.ResultsJson, "rec/results.json");
        }
        using (var input = TraceInput.Open(zip))
        {
            Assert.NotNull(input.ResultsPath);
            var analysis = new TraceAnalyzer(new AnalyzerOptions { CacheEtlx = false }).Analyze(input);
            Assert.Equal(recorded.Analysis.Runs.Count, analysis.Runs.Count);
            Assert.All(analysis.Runs, r => Assert.NotNull(r.InProcess));
        }
        Directory.Delete(dir, recursive: true);
    }

    [Fact]
    public async Task A_trace_without_run_events_says_so_and_has_no_runs()
    {
        var dir = Repo.NewTempDir("noruns");
        var (exit, folder, _) = await Recording.RecordAsync(Path.Combine(dir, "t"), ["--", "dotnet", Repo.BenchmarkDll, "--list"]);
        Assert.Equal(0, exit);
        using var input = TraceInput.Open(folder.Path);
        var analysis = new TraceAnalyzer(new AnalyzerOptions()).Analyze(input);
        Assert.Empty(analysis.Runs);
        // Not an error: a trace without runs is analyzed whole, and the analysis says so.
        Assert.Contains(analysis.Warnings, w => w.StartsWith("no benchmark runs", StringComparison.Ordinal));
        Assert.NotEmpty(analysis.Threads);
        Directory.Delete(dir, recursive: true);
    }

    [PlatformFact("NotWindows", "on Windows an .etl is read")]
    public void An_etl_off_windows_is_refused_with_the_reason()
    {
        var path = Path.Combine(Path.GetTempPath(), $"x-{Guid.NewGuid():N}.etl");
        File.WriteAllBytes(path, [1, 2, 3]);
        var ex = Assert.Throws<BadInputException>(() => TraceInput.Open(path));
        Assert.Contains("only be read on Windows", ex.Message, StringComparison.Ordinal);
        File.Delete(path);
    }
}
