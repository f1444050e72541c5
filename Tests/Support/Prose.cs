using System.Text;
using System.Text.RegularExpressions;

namespace EtwSerializerProfiler.Tests.Support;

/// <summary>
/// Sentence lengths of a Markdown page, as a reader meets them: prose only. Fenced code, tables, headings, HTML
/// comments and list items under 4 words are skipped. A paragraph or list item is joined into one line, inline code
/// counts as one word, a link as its text. A sentence ends at '.', '!' or '?' followed by a space and a capital, a
/// digit, a quote, a backtick or a bracket, or at the end of its paragraph. A word is a token with a letter or digit.
/// scripts/measure/prose.sh prints the figures per page.
/// </summary>
public static partial class Prose
{
    public const int MinListItemWords = 4;

    /// <summary>One page's sentence lengths, in words, in reading order.</summary>
    public sealed record Page(string Name, IReadOnlyList<int> Lengths)
    {
        public int Sentences => Lengths.Count;
        public double Median => MedianOf(Lengths);
        public double ShareOver(int words) => Lengths.Count == 0 ? 0 : (double)Lengths.Count(l => l > words) / Lengths.Count;
    }

    [GeneratedRegex(@"`[^`\n]+`")]
    private static partial Regex CodeSpan();

    [GeneratedRegex(@"!?\[([^\]]*)\]\([^)]*\)")]
    private static partial Regex Link();

    [GeneratedRegex(@"<!--.*?-->", RegexOptions.Singleline)]
    private static partial Regex Comment();

    [GeneratedRegex(@"^\s*([-*+]|\d+[.)])\s+")]
    private static partial Regex ListMarker();

    // The end of a sentence: . ! or ? (after an optional closing quote or bracket), a space, then what starts one.
    [GeneratedRegex(@"(?<=[.!?][)""'”’*_]*)\s+(?=[A-Z0-9`""“(\[*_\u0001])")]
    private static partial Regex SentenceBreak();

    [GeneratedRegex(@"[\p{L}\p{N}]")]
    private static partial Regex WordChar();

    // Abbreviations that end in a period but not a sentence.
    private static readonly string[] s_abbreviations = ["e.g.", "i.e.", "vs.", "etc.", "cf.", "approx.", "No.", "Fig."];

    public static Page Measure(string name, string markdown)
    {
        var lengths = new List<int>();
        foreach (var (text, isListItem) in Blocks(Comment().Replace(markdown, " ")))
            foreach (var sentence in Sentences(text))
            {
                var words = Words(sentence);
                if (words == 0 || (isListItem && words < MinListItemWords)) continue;
                lengths.Add(words);
            }
        return new Page(name, lengths);
    }

    /// <summary>The pages the goal covers: README.md and docs/*.md.</summary>
    public static IReadOnlyList<Page> RepositoryPages()
    {
        var files = new List<string> { Path.Combine(Repo.Root, "README.md") };
        files.AddRange(Directory.GetFiles(Path.Combine(Repo.Root, "docs"), "*.md").Order(StringComparer.Ordinal));
        return [.. files.Select(f => Measure(Path.GetRelativePath(Repo.Root, f).Replace('\\', '/'), File.ReadAllText(f)))];
    }

    public static double MedianOf(IReadOnlyList<int> values)
    {
        if (values.Count == 0) return 0;
        var sorted = values.Order().ToArray();
        var mid = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
    }

    public static int Words(string sentence) =>
        CodeSpan().Replace(sentence, "x").Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries).Count(t => WordChar().IsMatch(t));

    public static IEnumerable<string> Sentences(string paragraph)
    {
        // Protect what looks like a sentence end but is not: inline code, link targets, abbreviations.
        var text = Link().Replace(paragraph, m => m.Groups[1].Value);
        var spans = new List<string>();
        text = CodeSpan().Replace(text, m => { spans.Add(m.Value); return "\u0001" + (spans.Count - 1) + "\u0002"; });
        foreach (var abbreviation in s_abbreviations)
            text = text.Replace(abbreviation, abbreviation.Replace('.', '\u0003'), StringComparison.Ordinal);
        foreach (var part in SentenceBreak().Split(text))
            if (!string.IsNullOrWhiteSpace(part)) yield return part.Replace('\u0003', '.');
    }

    /// <summary>Paragraphs and list items, each joined into one line; code, tables, headings skipped.</summary>
    private static IEnumerable<(string Text, bool IsListItem)> Blocks(string markdown)
    {
        var current = new StringBuilder();
        var isListItem = false;
        var inFence = false;
        string? fence = null;
        foreach (var raw in markdown.Split('\n'))
        {
            var line = raw.TrimEnd('\r');
            var trimmed = line.TrimStart();
            if (inFence)
            {
                if (trimmed.StartsWith(fence!, StringComparison.Ordinal)) inFence = false;
                continue;
            }
            if (trimmed.StartsWith("```", StringComparison.Ordinal) || trimmed.StartsWith("~~~", StringComparison.Ordinal))
            {
                if (Flush() is { } block) yield return block;
                inFence = true;
                fence = trimmed[..3];
                continue;
            }
            var skipped = trimmed.Length == 0 || trimmed.StartsWith('#') || trimmed.StartsWith('|') || trimmed.StartsWith('<')
                || (line.StartsWith("    ", StringComparison.Ordinal) && current.Length == 0);
            var marker = ListMarker().Match(line);
            if (skipped || marker.Success)
            {
                if (Flush() is { } block) yield return block;
                if (skipped) continue;
                isListItem = true;
                current.Append(line[marker.Length..]);
                continue;
            }
            if (trimmed.StartsWith('>')) trimmed = trimmed.TrimStart('>').TrimStart();
            if (current.Length > 0) current.Append(' ');
            current.Append(trimmed);
        }
        if (Flush() is { } last) yield return last;

        (string, bool)? Flush()
        {
            if (current.Length == 0) return null;
            var block = (current.ToString(), isListItem);
            current.Clear();
            isListItem = false;
            return block;
        }
    }
}
