using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.StackTags;

/// <summary>
/// A user's tags file read together with the built-in serializer tags: one tree, one tag per stack, the built-in
/// tags first; and which of the user's entrypoints and tags matched nothing.
/// </summary>
public sealed class StackTagCombineTests
{
    private const string CoreLib = "/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.0/System.Private.CoreLib.dll";
    private const string StjDll = "/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.0/System.Text.Json.dll";
    private const string Bench = "/home/user/bin/SerializerBenchmark.dll";
    private const string Serializers = "EtwSerializerProfiler.Benchmark.Serializers.";

    private static readonly string s_systemWidePath = Path.Combine(Repo.Root, "stacktags", "WpaSamples", "SystemWide.stacktags");

    private static StackTagFile BuiltIn() => StackTagFile.Parse(SerializerStackTagsGenerator.Generate(
        [new("Reflection", Serializers + "ReflectionSerializer"), new("System.Text.Json", Serializers + "SystemTextJsonSerializer")]), "built-in");

    private static StackTagFile SystemWide() => StackTagFile.Load(s_systemWidePath);

    private static StackFrame[] Stack(params (string Module, string Method)[] leafFirst) =>
        [.. leafFirst.Select(f => new StackFrame(f.Module, f.Method))];

    /// <summary>The Reflection serializer asking for a property's type: built-in Reflection\Type queries (priority 9).</summary>
    private static readonly StackFrame[] s_typeQuery = Stack(
        (CoreLib, "System.RuntimeType.get_IsValueType()"),
        (Bench, Serializers + "ReflectionSerializer.Serialize(class System.Object,class System.IO.Stream)"));

    /// <summary>System.Text.Json writing a string: built-in Serialize\System.Text.Json claims the benchmark's frame only.</summary>
    private static readonly StackFrame[] s_stjWrite = Stack(
        (StjDll, "System.Text.Json.Utf8JsonWriter.WriteStringValue(value class System.ReadOnlySpan`1<wchar>)"),
        (Bench, Serializers + "SystemTextJsonSerializer.Serialize(class System.Object,class System.IO.Stream)"));

    [Fact]
    public void Combined_tags_keep_the_builtin_reflection_tags_and_add_the_users()
    {
        var combined = new StackTagMatcher(StackTagFile.Combine([BuiltIn(), SystemWide()]));
        // The user's ".NET\Type metadata" matches the same frame at priority 0: the built-in tag keeps it.
        Assert.Equal(@"Reflection\Type queries", combined.Classify(s_typeQuery));
        // A deeper frame of the user's (same priority) wins, as in WPA: both sets of tags appear.
        Assert.Equal(@"Libraries\System.Text.Json", combined.Classify(s_stjWrite));
        Assert.Equal(@"Serialize\System.Text.Json", new StackTagMatcher(BuiltIn()).Classify(s_stjWrite));
    }

    [Fact]
    public void The_users_file_alone_takes_the_reflection_time_out_of_the_reflection_tags()
    {
        // What --stacktags-only does, and what --stacktags did before the files combined.
        var alone = new StackTagMatcher(SystemWide());
        Assert.Equal(@".NET\Type metadata", alone.Classify(s_typeQuery));
        Assert.DoesNotContain(alone.File.TagPaths, p => p.StartsWith(@"Reflection\", StringComparison.Ordinal));
    }

    [Fact]
    public void A_tag_path_in_both_files_is_one_tag_and_a_tie_goes_to_the_earlier_file()
    {
        var first = StackTagFile.Parse("""<Tag Name=""><Tag Name="GC"><Entrypoint Module="a.dll" Method="f"/></Tag><Tag Name="Mine"><Entrypoint Module="x.dll" Method="g"/></Tag></Tag>""", "first");
        var second = StackTagFile.Parse("""<Tag Name=""><Tag Name="GC"><Entrypoint Module="b.dll" Method="*"/></Tag><Tag Name="Theirs"><Entrypoint Module="x.dll" Method="g"/></Tag></Tag>""", "second");
        var combined = StackTagFile.Combine([first, second]);
        Assert.Equal(["GC", "Mine", "Theirs"], combined.TagPaths);
        Assert.Equal(["first", "second"], combined.Sources);
        Assert.Equal("first + second", combined.SourceName);
        Assert.Equal(["first", "first", "second", "second"], combined.Rules.Select(r => r.Source));
        var matcher = new StackTagMatcher(combined);
        Assert.Equal("GC", matcher.MatchFrame("b.dll", "anything"));
        Assert.Equal("Mine", matcher.MatchFrame("x.dll", "g"));
    }

    [Fact]
    public void The_matcher_knows_which_entrypoints_matched_a_frame_even_when_they_lost_it()
    {
        var matcher = new StackTagMatcher(StackTagFile.Combine([BuiltIn(), SystemWide()]));
        Assert.Equal(matcher.File.Rules.Count, matcher.UnmatchedRules().Count);
        matcher.Classify(s_typeQuery);
        matcher.Classify(s_stjWrite);
        var unmatched = matcher.UnmatchedRules();
        // Matched, though the built-in Reflection\Type queries won the frame: the entrypoint is not dead.
        Assert.DoesNotContain(unmatched, r => r.TagPath == @".NET\Type metadata" && r.MethodPattern == "System.RuntimeType.get_*");
        Assert.DoesNotContain(unmatched, r => r.TagPath == @"Reflection\Type queries" && r.MethodPattern == "System.RuntimeType::*" && r.ModulePattern == "System.Private.CoreLib.*");
        Assert.Contains(unmatched, r => r.TagPath == @"Windows\Kernel\Page faults");
        Assert.Contains(unmatched, r => r.TagPath == @".NET\Type metadata" && r.ModulePattern == "mscorlib.ni.dll");
    }

    [Fact]
    public void Usage_lists_unmatched_tags_per_file_and_warns_only_about_the_users()
    {
        var sources = new StackTagSources("built-in", [s_systemWidePath]);
        var matcher = new StackTagMatcher(StackTagFile.Combine([BuiltIn(), StackTagFile.Load(s_systemWidePath)]));
        matcher.Classify(s_typeQuery);
        matcher.Classify(s_stjWrite);
        var uses = StackTagUsage.Of(matcher, sources);

        var builtIn = uses.Single(u => u.BuiltIn);
        Assert.Equal("built-in", builtIn.Path);
        Assert.Contains(@"Deserialize\Reflection", builtIn.UnmatchedTags);
        var user = uses.Single(u => !u.BuiltIn);
        Assert.Equal(SystemWide().Rules.Count, user.Entries);
        Assert.Equal(SystemWide().TagPaths.Count, user.Tags);
        Assert.Equal(3, user.MatchedEntries); // get_*, IsValueType* and System.Text.Json.*
        Assert.DoesNotContain(@".NET\Type metadata", user.UnmatchedTags);
        Assert.DoesNotContain(@"Libraries\System.Text.Json", user.UnmatchedTags);
        Assert.Equal(user.Tags - 2, user.UnmatchedTags.Count);

        var warning = Assert.Single(StackTagUsage.Warnings(uses));
        Assert.StartsWith($"stack tags {s_systemWidePath}: {user.Tags - 2} of its {user.Tags} tags matched no frame", warning, StringComparison.Ordinal);
        Assert.Contains(@"Windows\Kernel\Page faults", warning, StringComparison.Ordinal);
    }

    [Fact]
    public void A_file_that_matches_nothing_is_reported_as_such()
    {
        var use = new StackTagFileUse("mine.stacktags", BuiltIn: false, Entries: 4, MatchedEntries: 0, Tags: 2, UnmatchedTags: ["A", "B"]);
        var warning = Assert.Single(StackTagUsage.Warnings([use]));
        Assert.StartsWith("stack tags mine.stacktags: none of its 4 entrypoints matched a frame", warning, StringComparison.Ordinal);
        Assert.Empty(StackTagUsage.Warnings([use with { BuiltIn = true }]));
        Assert.Empty(StackTagUsage.Warnings([use with { MatchedEntries = 4, UnmatchedTags = [] }]));
    }

    [Fact]
    public void Sources_are_the_builtin_tags_plus_the_users_unless_only_the_users_are_asked_for()
    {
        var folderCopy = Path.Combine(Path.GetTempPath(), "trace", "Serializers.stacktags");
        var tool = Path.Combine(Path.GetTempPath(), "tool", "Serializers.stacktags");

        Assert.Equal([folderCopy], Resolve(new AnalyzerOptions(), folderCopy, tool).All);
        Assert.Equal([tool], Resolve(new AnalyzerOptions(), null, tool).All);
        Assert.Empty(Resolve(new AnalyzerOptions(), null, null).All);

        var user = new AnalyzerOptions { StackTagsPaths = ["mine.stacktags", "theirs.stacktags", "mine.stacktags", folderCopy] };
        var both = Resolve(user, folderCopy, tool);
        Assert.Equal(folderCopy, both.BuiltIn);
        Assert.Equal(["mine.stacktags", "theirs.stacktags"], both.User); // repeats and the built-in file itself are read once
        Assert.Equal([folderCopy, "mine.stacktags", "theirs.stacktags"], both.All);

        var only = Resolve(user with { StackTagsOnly = true }, folderCopy, tool);
        Assert.Null(only.BuiltIn);
        Assert.Equal(["mine.stacktags", "theirs.stacktags", folderCopy], only.All);

        Assert.Throws<UsageException>(() => Resolve(new AnalyzerOptions { StackTagsOnly = true }, folderCopy, tool));
    }

    private static StackTagSources Resolve(AnalyzerOptions options, string? folderCopy, string? tool) =>
        StackTagSources.Resolve(options, folderCopy, tool);
}
