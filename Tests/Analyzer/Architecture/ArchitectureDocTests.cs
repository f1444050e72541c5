using System.Text.RegularExpressions;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Architecture;

/// <summary>
/// docs/architecture.md names code: its data path, its layers and its "where to add" table point at folders, files,
/// types and members (`Samples/SampleCharger`, `RunDraft.Freeze`). Each name must still be in the repository, so the
/// picture cannot drift from the code unnoticed: a renamed or moved file fails here with the name to fix.
/// </summary>
public sealed partial class ArchitectureDocTests
{
    /// <summary>A path-like name: folders and a file or type, optionally ending in a member (`Processing/TraceAnalyzer.PassState`).</summary>
    [GeneratedRegex(@"^[A-Za-z][\w.-]*(/[\w.<>-]*)+$")]
    private static partial Regex PathLike();

    /// <summary>Type.Member, checked when the repository has a file named after the type.</summary>
    [GeneratedRegex(@"^([A-Z]\w*)\.([A-Z]\w*)$")]
    private static partial Regex TypeMember();

    [GeneratedRegex(@"^(?:(.*)/)?([A-Z]\w*)\.(\w+)$")]
    private static partial Regex PathWithMember();

    [GeneratedRegex("`([^`\n]+)`")]
    private static partial Regex CodeSpan();

    private static readonly List<string> s_files = [.. Directory.EnumerateFiles(Repo.Root, "*", SearchOption.AllDirectories)
        .Select(f => Path.GetRelativePath(Repo.Root, f).Replace('\\', '/'))
        .Where(f => !f.Split('/').Any(part => part is "bin" or "obj" or ".git" or "traces" or "node_modules"))];

    [Fact]
    public void Every_file_type_and_member_the_architecture_doc_names_exists()
    {
        var doc = File.ReadAllText(Path.Combine(Repo.Root, "docs", "architecture.md"));
        var names = CodeSpan().Matches(doc).Select(m => m.Groups[1].Value).Distinct().ToList();
        var missing = new List<string>();
        var checkedNames = 0;
        foreach (var name in names)
        {
            if (name.Contains("Xxx", StringComparison.Ordinal)) continue; // the "where to add" table's placeholder
            if (PathLike().IsMatch(name))
            {
                checkedNames++;
                if (!PathExists(name)) missing.Add(name);
            }
            else if (TypeMember().Match(name) is { Success: true } m && SourcesOf(m.Groups[1].Value) is { Count: > 0 } sources)
            {
                checkedNames++;
                if (!Mentions(sources, m.Groups[2].Value)) missing.Add(name);
            }
        }
        // The doc names well over a hundred places (120 when this test was written): far fewer means the scan broke.
        Assert.True(checkedNames >= 80, $"only {checkedNames} names checked");
        Assert.True(missing.Count == 0, "docs/architecture.md names what the repository no longer has:\n" + string.Join("\n", missing));
    }

    /// <summary>A folder or file (by path suffix, so `Collectors/JitCollector` finds Analyzer/Processing/Collectors/JitCollector.cs), or a member of one.</summary>
    private static bool PathExists(string name)
    {
        var trimmed = name.TrimEnd('/');
        if (s_files.Any(f => Ends(f, trimmed) || Ends(f, trimmed + ".cs") || f.StartsWith(trimmed + "/", StringComparison.Ordinal) || f.Contains("/" + trimmed + "/", StringComparison.Ordinal))) return true;
        return PathWithMember().Match(trimmed) is { Success: true } m
            && SourcesOf(m.Groups[2].Value, m.Groups[1].Value) is { Count: > 0 } sources
            && Mentions(sources, m.Groups[3].Value);
    }

    private static bool Ends(string path, string suffix) => path == suffix || path.EndsWith("/" + suffix, StringComparison.Ordinal);

    /// <summary>The type's file and its partial files (TraceAnalyzer.Cpu.cs), under the folder when one is given.</summary>
    private static List<string> SourcesOf(string type, string? folder = null) =>
        [.. s_files.Where(f => f.EndsWith(".cs", StringComparison.Ordinal)
            && (Path.GetFileName(f) == type + ".cs" || (Path.GetFileName(f).StartsWith(type + ".", StringComparison.Ordinal) && Path.GetFileName(f).Count(c => c == '.') == 2))
            && (folder is null || Ends(Path.GetDirectoryName(f)!.Replace('\\', '/'), folder)))];

    private static bool Mentions(List<string> sources, string member) =>
        sources.Any(f => Regex.IsMatch(File.ReadAllText(Path.Combine(Repo.Root, f)), $@"\b{Regex.Escape(member)}\b"));
}
