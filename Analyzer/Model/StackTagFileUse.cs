namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>One stack tags file of an analysis, and how much of it matched the frames of the stacks analyzed.</summary>
/// <param name="Path">The file as given.</param>
/// <param name="BuiltIn">The built-in serializer tags (the trace folder's copy or the tool's), not a --stacktags file.</param>
/// <param name="Entries">Its <c>Entrypoint</c> elements.</param>
/// <param name="MatchedEntries">Entrypoints that matched at least one frame.</param>
/// <param name="Tags">Its tag paths that own an entrypoint.</param>
/// <param name="UnmatchedTags">Tag paths none of whose entrypoints in this file matched a frame, in file order.</param>
public sealed record StackTagFileUse(string Path, bool BuiltIn, int Entries, int MatchedEntries, int Tags, IReadOnlyList<string> UnmatchedTags);
