using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// After the pass: which entrypoints and tags of each file matched nothing. A user's file written for Windows
/// modules, or with module names spelled differently from the trace's, would otherwise just add nothing, silently.
/// The built-in file is listed but never warned about: it names every serializer, and a trace holds a few.
/// </summary>
internal static class StackTagUsage
{
    /// <summary>Tag names shown in a warning line; the JSON (trace.stackTagFiles) lists them all.</summary>
    private const int NamesShown = 5;

    public static void Report(StackTagMatcher matcher, StackTagSources sources, AnalysisDraft analysis)
    {
        ArgumentNullException.ThrowIfNull(matcher);
        ArgumentNullException.ThrowIfNull(sources);
        ArgumentNullException.ThrowIfNull(analysis);
        var uses = Of(matcher, sources);
        analysis.Trace = analysis.Trace with { StackTagFiles = uses };
        // No frame was classified (no runs, no stacks): every file would "match nothing", which says nothing.
        if (matcher.CachedFrameCount == 0) return;
        analysis.WarningList.AddRange(Warnings(uses));
    }

    public static IReadOnlyList<StackTagFileUse> Of(StackTagMatcher matcher, StackTagSources sources)
    {
        ArgumentNullException.ThrowIfNull(matcher);
        ArgumentNullException.ThrowIfNull(sources);
        var unmatched = matcher.UnmatchedRules().ToHashSet();
        return [.. sources.All.Select(path =>
        {
            var rules = matcher.File.Rules.Where(r => r.Source == path).ToList();
            var tags = rules.Select(r => r.TagPath).Distinct(StringComparer.Ordinal).ToList();
            var deadTags = tags.Where(t => rules.Where(r => r.TagPath == t).All(unmatched.Contains)).ToList();
            return new StackTagFileUse(path, path == sources.BuiltIn, rules.Count, rules.Count(r => !unmatched.Contains(r)), tags.Count, deadTags);
        })];
    }

    public static IEnumerable<string> Warnings(IEnumerable<StackTagFileUse> uses)
    {
        ArgumentNullException.ThrowIfNull(uses);
        foreach (var use in uses.Where(u => !u.BuiltIn && u.UnmatchedTags.Count > 0))
        {
            if (use.MatchedEntries == 0)
            {
                yield return $"stack tags {use.Path}: none of its {use.Entries} entrypoints matched a frame of the stacks analyzed, so none of its tags appear "
                    + "(modules match by file name, as in WPA: System.Private.CoreLib.dll, libcoreclr.so; see docs/analyzer.md#stack-tags)";
                continue;
            }
            var shown = string.Join(", ", use.UnmatchedTags.Take(NamesShown));
            var more = use.UnmatchedTags.Count > NamesShown ? $" and {use.UnmatchedTags.Count - NamesShown} more (JSON: trace.stackTagFiles)" : "";
            yield return $"stack tags {use.Path}: {use.UnmatchedTags.Count} of its {use.Tags} tags matched no frame of the stacks analyzed: {shown}{more}";
        }
    }
}
