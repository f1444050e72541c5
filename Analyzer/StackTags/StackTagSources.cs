using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.StackTags;

/// <summary>
/// Which stack tags files an analysis reads. By default the built-in serializer tags (the trace folder's copy, which
/// matches the benchmark that was recorded, else the tool's own) together with every <c>--stacktags</c> file, so a
/// public tags file adds its tags without taking away the Reflection, Activator, GC and JIT columns and the findings
/// built on them; with <c>--stacktags-only</c> the user's files alone. The built-in file comes first, so it wins
/// ties of priority on the same frame (<see cref="StackTagFile.Combine"/>).
/// </summary>
/// <param name="BuiltIn">The built-in serializer tags file, or null (none found, or --stacktags-only).</param>
/// <param name="User">The user's files, in command-line order, without repeats.</param>
internal sealed record StackTagSources(string? BuiltIn, IReadOnlyList<string> User)
{
    private static readonly StringComparer s_pathComparer = OperatingSystem.IsWindows() ? StringComparer.OrdinalIgnoreCase : StringComparer.Ordinal;

    public static StackTagSources Resolve(AnalyzerOptions options, string? folderCopy, string? toolDefault)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.StackTagsOnly && options.StackTagsPaths.Count == 0)
            throw new UsageException("--stacktags-only needs at least one --stacktags FILE");
        var builtIn = options.StackTagsOnly ? null : folderCopy ?? toolDefault;
        // The built-in file named again (--stacktags stacktags/Serializers.stacktags) is read once, as built-in.
        var user = options.StackTagsPaths
            .Where(p => builtIn is null || !s_pathComparer.Equals(Path.GetFullPath(p), Path.GetFullPath(builtIn)))
            .DistinctBy(Path.GetFullPath, s_pathComparer)
            .ToList();
        return new StackTagSources(builtIn, user);
    }

    /// <summary>Every file, built-in first.</summary>
    public IReadOnlyList<string> All => BuiltIn is null ? User : [BuiltIn, .. User];

    /// <returns>The files read as one, or null when there are none.</returns>
    public StackTagFile? Load() => All.Count == 0 ? null : StackTagFile.Combine([.. All.Select(StackTagFile.Load)]);
}
