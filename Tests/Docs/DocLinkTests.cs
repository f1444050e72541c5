using System.Text.RegularExpressions;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Docs;

/// <summary>
/// Every relative link in README.md, CONTRIBUTING.md and docs/*.md reaches a file that exists, and its #anchor a
/// heading of that page (GitHub's slugs). Docs move text between pages and link to its one home; a moved or renamed
/// heading fails here with the link to fix.
/// </summary>
public sealed partial class DocLinkTests
{
    [GeneratedRegex(@"\]\(([^)\s]+)\)")]
    private static partial Regex Link();

    [GeneratedRegex(@"[^\p{L}\p{N}\s_-]")]
    private static partial Regex NotSlug();

    [Fact]
    public void Every_relative_link_reaches_a_page_and_heading()
    {
        var pages = new List<string> { "README.md", "CONTRIBUTING.md" };
        pages.AddRange(Directory.GetFiles(Path.Combine(Repo.Root, "docs"), "*.md").Select(f => "docs/" + Path.GetFileName(f)));
        var broken = new List<string>();
        var links = 0;
        foreach (var page in pages)
        {
            var text = WithoutCode(File.ReadAllText(Path.Combine(Repo.Root, page)));
            foreach (Match m in Link().Matches(text))
            {
                var target = m.Groups[1].Value;
                if (target.Contains("://", StringComparison.Ordinal) || target.StartsWith("mailto:", StringComparison.Ordinal)) continue;
                links++;
                var hash = target.IndexOf('#');
                var path = hash < 0 ? target : target[..hash];
                var anchor = hash < 0 ? null : target[(hash + 1)..];
                var file = path.Length == 0 ? page : Path.GetRelativePath(Repo.Root, Path.GetFullPath(Path.Combine(Repo.Root, Path.GetDirectoryName(page)!, path))).Replace('\\', '/');
                var full = Path.Combine(Repo.Root, file);
                if (!File.Exists(full) && !Directory.Exists(full)) broken.Add($"{page}: {target} (no {file})");
                else if (anchor is not null && file.EndsWith(".md", StringComparison.Ordinal) && !Anchors(File.ReadAllText(full)).Contains(anchor))
                    broken.Add($"{page}: {target} (no heading #{anchor} in {file})");
            }
        }
        Assert.True(links >= 100, $"only {links} relative links found");
        Assert.True(broken.Count == 0, "broken links:\n" + string.Join("\n", broken));
    }

    /// <summary>GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered.</summary>
    public static HashSet<string> Anchors(string markdown)
    {
        var anchors = new HashSet<string>(StringComparer.Ordinal);
        var seen = new Dictionary<string, int>(StringComparer.Ordinal);
        foreach (var line in WithoutCode(markdown).Split('\n'))
        {
            if (!line.StartsWith('#')) continue;
            var slug = NotSlug().Replace(line.TrimStart('#').Trim().ToLowerInvariant(), "").Replace(' ', '-');
            var n = seen.GetValueOrDefault(slug);
            seen[slug] = n + 1;
            anchors.Add(n == 0 ? slug : $"{slug}-{n}");
        }
        return anchors;
    }

    /// <summary>The page with its fenced code blocks blanked (a '#' comment there is no heading, a link no link).</summary>
    private static string WithoutCode(string markdown)
    {
        var lines = markdown.Split('\n');
        var inFence = false;
        for (var i = 0; i < lines.Length; i++)
        {
            var fence = lines[i].TrimStart().StartsWith("```", StringComparison.Ordinal);
            if (fence || inFence) { if (fence) inFence = !inFence; lines[i] = ""; }
        }
        return string.Join('\n', lines);
    }
}
