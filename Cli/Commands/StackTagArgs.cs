using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli.Commands;

/// <summary>
/// The stack tags options analyze and diff share: <c>--stacktags F</c>, repeatable, adds a file to the built-in
/// serializer tags; <c>--stacktags-only</c> drops the built-in ones (docs/analyzer.md#stack-tags).
/// </summary>
internal static class StackTagArgs
{
    public const string OnlyFlag = "stacktags-only";

    public static (IReadOnlyList<string> Paths, bool Only) Read(ArgReader r) => (r.Strings("stacktags"), r.Flag(OnlyFlag));

    /// <summary>Call after RejectUnknown, so that a typo in another option is reported first.</summary>
    public static void Validate(AnalyzerOptions options)
    {
        foreach (var path in options.StackTagsPaths)
            if (!File.Exists(path)) throw new UsageException($"--stacktags {path}: no such file");
        if (options.StackTagsOnly && options.StackTagsPaths.Count == 0) throw new UsageException($"--{OnlyFlag} needs at least one --stacktags F");
    }
}
