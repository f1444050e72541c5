using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Findings;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// A user's tags file (in the shapes of ETWAnalyzer's public default.stacktags) on the shared real recording:
/// added to the built-in serializer tags it adds its own tags and leaves the Reflection figures and the findings as
/// they were; alone (--stacktags-only) it empties the Reflection column, which is what --stacktags used to do.
/// </summary>
[EndToEnd]
[Collection(RecordedBenchmarkCollection.Name)]
public sealed class UserStackTagsTests(RecordedBenchmark recorded)
{
    private static readonly string s_systemWide = Path.Combine(Repo.Root, "stacktags", "WpaSamples", "SystemWide.stacktags");

    private TraceAnalysis Analyze(AnalyzerOptions options)
    {
        using var input = TraceInput.Open(recorded.Folder.Path);
        return new TraceAnalyzer(options).Analyze(input);
    }

    /// <summary>The user file's tags that rank above the built-in reflection tags (Priority 7-20) on frames they share.</summary>
    private static readonly string[] s_rankedAboveReflection = [@".NET\Code generation", @".NET\Explicit GC"];

    private static double ReflectionMs(RunAnalysis run) => run.TagMs("Reflection") + run.TagMs("Activator");

    private static IEnumerable<string> FindingKeys(TraceAnalysis a) =>
        a.Findings.Select(f => $"{f.Kind} {f.Serializer} {f.Operation} {f.Objects} {f.Frame}");

    [Fact]
    public void A_users_tags_file_adds_its_tags_and_keeps_the_builtin_reflection_figures_and_findings()
    {
        var builtIn = Analyze(new AnalyzerOptions());
        var combined = Analyze(new AnalyzerOptions { StackTagsPaths = [s_systemWide] });

        var tags = combined.Runs.SelectMany(r => r.Tags.Keys).ToHashSet(StringComparer.Ordinal);
        Assert.Contains(tags, t => t.StartsWith(@"Reflection\", StringComparison.Ordinal));
        Assert.Contains(tags, t => t.StartsWith(@"Serialize\", StringComparison.Ordinal) || t.StartsWith(@"Deserialize\", StringComparison.Ordinal));
        Assert.Contains(tags, t => t.StartsWith(@"Libraries\", StringComparison.Ordinal)); // the user's file

        // Same trace, same samples: the user's tags took from the built-in reflection tags only what they rank above.
        // ".NET\Code generation" (Priority 100, System.Reflection.Emit*) ranks above the built-in Reflection\Emit (10):
        // a sample that lands in Emit moves to it, which a run has or not by chance (CI once saw one 1-ms sample do so).
        // Every other user tag that could match here ranks below the reflection tags and takes nothing from them.
        Assert.Equal(builtIn.Runs.Select(r => r.Key), combined.Runs.Select(r => r.Key));
        foreach (var (a, b) in builtIn.Runs.Zip(combined.Runs))
        {
            var taken = ReflectionMs(a) - ReflectionMs(b);
            Assert.InRange(taken, -1e-6, s_rankedAboveReflection.Sum(b.TagMs) + 1e-6);
            Assert.Equal(a.Tags.Values.Sum(), b.Tags.Values.Sum(), 6);
        }
        Assert.True(combined.Runs.Where(r => r.Key.Serializer == "Reflection").Sum(ReflectionMs) > 0, "no reflection time in the Reflection serializer");
        Assert.NotEmpty(builtIn.Findings);
        Assert.Equal(FindingKeys(builtIn), FindingKeys(combined));

        Assert.Equal($"{builtIn.Trace.StackTagsFile} + {s_systemWide}", combined.Trace.StackTagsFile);
        var user = Assert.Single(combined.Trace.StackTagFiles, f => !f.BuiltIn);
        Assert.Equal(s_systemWide, user.Path);
        Assert.InRange(user.MatchedEntries, 1, user.Entries - 1);
        Assert.Contains(@"Windows\Kernel\Page faults", user.UnmatchedTags);
        Assert.DoesNotContain(@"Libraries\Google.Protobuf", user.UnmatchedTags);
        Assert.DoesNotContain(@".NET\Type metadata", user.UnmatchedTags); // it matched; the built-in tag won its frames
        Assert.Contains(combined.Warnings, w => w.StartsWith($"stack tags {s_systemWide}: {user.UnmatchedTags.Count} of its {user.Tags} tags matched no frame", StringComparison.Ordinal));
        Assert.DoesNotContain(builtIn.Warnings, w => w.StartsWith("stack tags ", StringComparison.Ordinal));
    }

    [Fact]
    public void Only_the_users_file_when_asked_and_then_the_reflection_column_is_empty()
    {
        // The issue's report, now only on request: a public file has no Reflection\ tags, so that time goes elsewhere.
        var only = Analyze(new AnalyzerOptions { StackTagsPaths = [s_systemWide], StackTagsOnly = true });
        Assert.Equal(s_systemWide, only.Trace.StackTagsFile);
        Assert.All(only.Runs, r => Assert.Equal(0, ReflectionMs(r)));
        Assert.Contains(only.Runs.Where(r => r.Key.Serializer == "Reflection"), r => r.Tags.ContainsKey(@".NET\Type metadata"));
        Assert.DoesNotContain(only.Findings, f => f.Kind == FindingKinds.Reflection);
    }

    [Fact]
    public void A_file_that_matches_nothing_in_the_trace_is_reported()
    {
        var path = Path.Combine(Repo.NewTempDir("tags"), "windows-only.stacktags");
        File.WriteAllText(path, """
            <?xml version="1.0" encoding="utf-8"?>
            <Tag Name="">
              <Tag Name="Kernel\Page faults"><Entrypoint Module="ntoskrnl.exe" Method="MmAccessFault*"/></Tag>
              <Tag Name="Desktop"><Entrypoint Module="user32.dll" Method="*"/></Tag>
            </Tag>
            """);
        try
        {
            var analysis = Analyze(new AnalyzerOptions { StackTagsPaths = [path] });
            Assert.Contains(analysis.Warnings, w => w.StartsWith($"stack tags {path}: none of its 2 entrypoints matched a frame", StringComparison.Ordinal));
            Assert.True(analysis.Runs.Where(r => r.Key.Serializer == "Reflection").Sum(ReflectionMs) > 0);
        }
        finally
        {
            Directory.Delete(Path.GetDirectoryName(path)!, recursive: true);
        }
    }
}
