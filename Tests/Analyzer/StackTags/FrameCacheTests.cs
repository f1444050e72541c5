using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Tests.Analyzer.StackTags;

/// <summary>
/// The matcher's per-thread cache of frames by name instance: whatever it holds, a stack's tag is the one the
/// patterns give, for frames seen again by the same strings, by copies of them, past the table's first growth, and
/// from several threads at once.
/// </summary>
public sealed class FrameCacheTests
{
    private const string Tags = """
        <Tag Name="">
          <Tag Name="Serialize">
            <Tag Name="Json" Priority="5"><Entrypoint Module="lib.dll" Method="Json.Writer::*"/></Tag>
          </Tag>
          <Tag Name="Hot" Priority="3"><Entrypoint Module="app.dll" Method="App.H*"/></Tag>
          <Tag Name="Mine" Priority="1"><Entrypoint Module="app.dll" Method="*"/></Tag>
        </Tag>
        """;

    /// <summary>
    /// About 3,000 distinct frames (the table starts at 1,024 slots and grows): an app frame, hot or not, under a
    /// library frame or not, and some of its methods again in an untagged module. Frames share module strings and
    /// method strings, so a cache that looked at only one of the two would give one frame's tag to another.
    /// </summary>
    private static List<StackFrame[]> Stacks()
    {
        const string app = "app.dll", lib = "lib.dll", untagged = "other.dll";
        return [.. Enumerable.Range(0, 2000).SelectMany(i =>
        {
            var own = new StackFrame(app, i % 2 == 0 ? $"App.H{i}()" : $"App.M{i}()");
            var stack = i % 3 == 0 ? new[] { own, new StackFrame(lib, $"Json.Writer.W{i}()") } : [own];
            // The same method string in a module no rule names: a cache that looked at the method alone would tag it.
            return i % 5 == 0 ? new[] { stack, [new StackFrame(untagged, own.Method)] } : [stack];
        })];
    }

    private static string Expected(StackFrame[] stack) =>
        stack.Length == 2 ? @"Serialize\Json"
        : stack[0].Module == "other.dll" ? StackTagMatcher.Other
        : stack[0].Method.StartsWith("App.H", StringComparison.Ordinal) ? "Hot" : "Mine";

    [Fact]
    public void Tags_are_the_patterns_answer_by_instance_by_copy_and_after_growth()
    {
        var matcher = new StackTagMatcher(StackTagFile.Parse(Tags, "t"));
        var stacks = Stacks();
        foreach (var stack in stacks) Assert.Equal(Expected(stack), matcher.Classify(stack));
        foreach (var stack in stacks) Assert.Equal(Expected(stack), matcher.Classify(stack)); // found by instance
        foreach (var stack in stacks)
        {
            StackFrame[] copy = [.. stack.Select(f => new StackFrame(new string(f.Module.AsSpan()), new string(f.Method.AsSpan())))];
            Assert.Equal(Expected(stack), matcher.Classify(copy)); // new strings: found by content
        }
        Assert.Equal(stacks.Sum(s => s.Length), matcher.CachedFrameCount);
    }

    [Fact]
    public void Threads_sharing_one_matcher_get_the_same_tags()
    {
        var matcher = new StackTagMatcher(StackTagFile.Parse(Tags, "t"));
        var stacks = Stacks();
        var answers = Enumerable.Range(0, 4).AsParallel().WithDegreeOfParallelism(4)
            .Select(_ => stacks.Select(s => matcher.Classify(s)).ToArray()).ToList();
        foreach (var a in answers) Assert.Equal(stacks.Select(Expected), a);
    }
}
