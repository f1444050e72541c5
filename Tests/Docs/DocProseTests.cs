using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.Docs;

/// <summary>
/// The docs are read by people (CONTRIBUTING.md, "Docs"): short sentences, measured on README.md and docs/*.md by
/// <see cref="Prose"/>. The goal of issue 45: a median sentence of at most 18 words, and at most 5% over 35 words.
/// A page that drifts back to long sentences fails here, with the per-page table to say which.
/// </summary>
public sealed class DocProseTests(ITestOutputHelper output)
{
    public const int MaxMedianWords = 18;
    public const int LongSentenceWords = 35;
    public const double MaxLongShare = 0.05;

    [Fact]
    public void Docs_sentences_are_short()
    {
        var pages = Prose.RepositoryPages();
        var all = pages.SelectMany(p => p.Lengths).ToList();
        var table = Table(pages);
        output.WriteLine(table);
        // Over a thousand sentences: far fewer means the splitter skips prose it should read.
        Assert.True(all.Count >= 1000, $"only {all.Count} sentences found\n{table}");
        var median = Prose.MedianOf(all);
        var longShare = (double)all.Count(l => l > LongSentenceWords) / all.Count;
        Assert.True(median <= MaxMedianWords, $"median sentence {median} words, goal at most {MaxMedianWords}\n{table}");
        Assert.True(longShare <= MaxLongShare,
            $"{longShare:P1} of sentences over {LongSentenceWords} words, goal at most {MaxLongShare:P0}: split the longest on the pages above\n{table}");
    }

    [Fact]
    public void Splitter_skips_code_tables_headings_and_short_list_items()
    {
        const string page = """
            # A heading of many many words that is not a sentence at all

            One two three four five. Six seven, e.g. eight nine `a b c d` ten.
            A continued line ends here? Yes it does!

            | a table | of words that are not prose either |
            |---|---|

            ```bash
            esp analyze this is code. It has no sentences.
            ```

            - short item
            - a list item of six words.
              Continued with four more.
            """;
        var lengths = Prose.Measure("page", page).Lengths;
        Assert.Equal([5, 7, 5, 3, 6, 4], lengths);
    }

    /// <summary>The whole set first, then each page: sentences, median words, share over 35 words.</summary>
    public static string Table(IReadOnlyList<Prose.Page> pages)
    {
        var all = new Prose.Page("all (README.md + docs/)", [.. pages.SelectMany(p => p.Lengths)]);
        var rows = new[] { all }.Concat(pages.OrderByDescending(p => p.Sentences));
        var lines = new List<string> { "| page | sentences | median words | over 35 words |", "|---|---:|---:|---:|" };
        lines.AddRange(rows.Select(p => $"| {p.Name} | {p.Sentences} | {p.Median:0.#} | {p.ShareOver(LongSentenceWords):P1} |"));
        return string.Join("\n", lines);
    }
}
