using EtwSerializerProfiler.Analyzer.Samples;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Stacks;

namespace EtwSerializerProfiler.Tests.Analyzer.Stacks;

/// <summary>One frames array per distinct named stack: what the tag cache and the charger share work on.</summary>
public sealed class FrameArraysTests
{
    private static readonly string s_module = "Ser.dll";
    private static readonly string s_read = "Ser.Reader.Read()";
    private static readonly string s_run = "X.BenchmarkRunner.DeserializeRun(int)";

    [Fact]
    public void Stacks_naming_the_same_methods_share_one_array()
    {
        var arrays = new FrameArrays();
        // Two addresses in the same methods: the namers give them the same strings.
        var a = arrays.Intern([new(s_module, s_read), new(s_module, s_run)]);
        var b = arrays.Intern([new(s_module, s_read), new(s_module, s_run)]);
        Assert.Same(a, b);
        Assert.Equal(1, arrays.Count);
        Assert.Equal([new StackFrame(s_module, s_read), new StackFrame(s_module, s_run)], a);
    }

    [Fact]
    public void Order_length_and_names_tell_stacks_apart()
    {
        var arrays = new FrameArrays();
        var leafFirst = arrays.Intern([new(s_module, s_read), new(s_module, s_run)]);
        Assert.NotSame(leafFirst, arrays.Intern([new(s_module, s_run), new(s_module, s_read)]));
        Assert.NotSame(leafFirst, arrays.Intern([new(s_module, s_read)]));
        Assert.NotSame(leafFirst, arrays.Intern([new(s_module, s_read), new(s_module, s_run), new(s_module, s_run)]));
        Assert.Equal(4, arrays.Count);
    }

    [Fact]
    public void Equal_names_in_other_string_instances_stay_apart_and_the_caller_buffer_is_copied()
    {
        var arrays = new FrameArrays();
        var buffer = new[] { new StackFrame(s_module, s_read) };
        var a = arrays.Intern(buffer);
        // A copy of the same text is another instance: not shared (costs sharing, never a wrong answer).
        var b = arrays.Intern([new StackFrame(s_module, new string(s_read.AsSpan()))]);
        Assert.NotSame(a, b);
        Assert.Equal(a, b);
        buffer[0] = new StackFrame(s_module, s_run);
        Assert.Equal(s_read, a[0].Method);
        Assert.Empty(arrays.Intern([]));
    }
}
