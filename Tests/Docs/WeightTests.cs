using System.Text.RegularExpressions;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Docs;

/// <summary>
/// Less to read and less to touch (CONTRIBUTING.md, "Weight"): the docs' word budget, the recorder's composition and
/// one home per helper, counted from the repository's files. A change that grows one past its bound fails here.
/// </summary>
public sealed partial class WeightTests
{
    private const int MostWords = 30_000;
    private const int MostWordsPerPage = 4_000;
    private const int MostReadmeWords = 1_200;
    private const int MostRunAsyncLines = 40;

    /// <summary>As `wc -w README.md CONTRIBUTING.md docs/*.md` counts them.</summary>
    [Fact]
    public void The_docs_stay_within_their_word_budget()
    {
        var pages = new[] { "README.md", "CONTRIBUTING.md" }.Select(p => Path.Combine(Repo.Root, p))
            .Concat(Directory.GetFiles(Path.Combine(Repo.Root, "docs"), "*.md"))
            .ToDictionary(p => Path.GetRelativePath(Repo.Root, p), p => File.ReadAllText(p).Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries).Length);
        var table = string.Join(", ", pages.OrderByDescending(p => p.Value).Select(p => $"{p.Key} {p.Value:N0}"));
        Assert.True(pages.Values.Sum() <= MostWords, $"{pages.Values.Sum():N0} words, at most {MostWords:N0}: {table}");
        Assert.True(pages.Values.Max() <= MostWordsPerPage, $"a page over {MostWordsPerPage:N0} words: {table}");
        Assert.True(pages["README.md"] <= MostReadmeWords, $"README.md has {pages["README.md"]:N0} words, at most {MostReadmeWords:N0}");
        // Far fewer words than the docs hold means the pages were not found.
        Assert.True(pages.Values.Sum() > 10_000, table);
    }

    /// <summary>`esp record` composes its participants (IRecordingParticipant): the command itself stays short.</summary>
    [Fact]
    public void Record_command_composes_participants_in_a_short_method()
    {
        var lines = File.ReadAllLines(Path.Combine(Repo.Root, "Recorder", "Launch", "RecordCommand.cs"));
        var start = Array.FindIndex(lines, l => l.Contains(" RunAsync(", StringComparison.Ordinal) && l.Contains("public static", StringComparison.Ordinal));
        Assert.True(start >= 0, "RecordCommand.RunAsync not found");
        var indent = lines[start][..(lines[start].Length - lines[start].TrimStart().Length)];
        var end = Array.FindIndex(lines, start + 1, l => l == indent + "}");
        Assert.True(end > start, "the end of RunAsync not found");
        Assert.True(end - start + 1 < MostRunAsyncLines, $"RecordCommand.RunAsync is {end - start + 1} lines, under {MostRunAsyncLines} wanted: give the new part to a participant");
    }

    /// <summary>One home per helper, and no exception swallowed without a word on why.</summary>
    [Fact]
    public void Helpers_have_one_home_and_empty_catches_say_why()
    {
        var sources = ProductSources().ToList();
        Assert.True(sources.Count > 100, $"only {sources.Count} source files found");
        var tryDelete = sources.Where(s => TryDeleteDefinition().IsMatch(s.Text)).Select(s => s.Path).ToList();
        Assert.True(tryDelete.Count == 1, $"TryDelete(string) is defined in {tryDelete.Count} files, one wanted (Common's FileCleanup): {string.Join(", ", tryDelete)}");
        var silent = sources.SelectMany(s => s.Text.Split('\n').Select((line, i) => (s.Path, Line: i + 1, Text: line)))
            .Where(l => EmptyCatch().IsMatch(l.Text) && !l.Text.Contains("//", StringComparison.Ordinal))
            .Select(l => $"{l.Path}:{l.Line}").ToList();
        Assert.True(silent.Count == 0, $"empty catches without a comment on why: {string.Join(", ", silent)}");
    }

    private static IEnumerable<(string Path, string Text)> ProductSources()
    {
        foreach (var folder in new[] { "Analyzer", "BdnDiagnoser", "Benchmark", "Cli", "Common", "Recorder", "RunMarkers" })
            foreach (var file in Directory.EnumerateFiles(Path.Combine(Repo.Root, folder), "*.cs", SearchOption.AllDirectories))
            {
                var relative = Path.GetRelativePath(Repo.Root, file);
                if (relative.Contains($"{Path.DirectorySeparatorChar}bin{Path.DirectorySeparatorChar}", StringComparison.Ordinal)
                    || relative.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}", StringComparison.Ordinal)) continue;
                yield return (relative, File.ReadAllText(file));
            }
    }

    [GeneratedRegex(@"static\s+\w+\s+TryDelete\s*\(\s*string\s")]
    private static partial Regex TryDeleteDefinition();

    /// <summary>`catch { }` or `catch (X) { }` (with or without a when clause) on one line.</summary>
    [GeneratedRegex(@"\bcatch\b(\s*\([^)]*\))?(\s*when\s*\(.*\))?\s*\{\s*\}")]
    private static partial Regex EmptyCatch();
}
