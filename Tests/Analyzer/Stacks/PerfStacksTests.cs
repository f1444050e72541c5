using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Samples;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Stacks;

namespace EtwSerializerProfiler.Tests.Analyzer.Stacks;

/// <summary>
/// The kernel session's stacks as the charge reads them, on a hand-made perf trace: named, trimmed, and shared by every
/// address stack that names alike (one array per named stack), whether found by walking the chain or by its leaf.
/// </summary>
public sealed class PerfStacksTests
{
    private const string Dso = "/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.0/libcoreclr.so";
    private readonly KernelTrace _kernel = new();

    private int Frame(ulong address, string symbol = "[unknown]", string dso = "/memfd:doublemapper (deleted)")
    {
        _kernel.Frames.Add(new RawFrame(address, symbol, dso, Kernel: false));
        return _kernel.Frames.Count - 1;
    }

    private int Stack(params int[] leafFirst) => _kernel.Stacks.Intern(leafFirst);

    private PerfStacks Stacks() => new(_kernel, new KernelFrameNamer(_kernel, ManagedCodeMap.FromMethods([
        new(0x1000, 0x100, "App.Leaf()", "app.dll", CodeTier.Tier1, 0),
        new(0x2000, 0x100, "App.Caller()", "app.dll", CodeTier.Tier0, 0),
        new(0x3000, 0x100, "App.Other()", "app.dll", CodeTier.ReadyToRun, 0)])), tags: null);

    private static string[] Names(StackFrame[] frames) => [.. frames.Select(f => $"{f.Module}!{f.Method}")];

    [Fact]
    public void Stacks_that_differ_only_by_the_leafs_address_in_one_method_are_one_array()
    {
        var start = Frame(0x9000, "start_thread", Dso);
        var caller = Frame(0x2010);
        var a = Stack(Frame(0x1004), caller, start);
        var b = Stack(Frame(0x10f0), caller, start); // same method, another instruction
        var c = Stack(Frame(0x3008), caller, start); // another method
        var stacks = Stacks();

        var first = stacks.Frames(a, run: null);
        Assert.Equal(["app.dll!App.Leaf()", "app.dll!App.Caller()"], Names(first)); // the native thread start is trimmed
        Assert.Same(first, stacks.Frames(b, run: null));
        Assert.Equal(["app.dll!App.Other()", "app.dll!App.Caller()"], Names(stacks.Frames(c, run: null)));
        Assert.Equal(CodeTier.Tier1, stacks.Tier(b));
        Assert.Equal(CodeTier.ReadyToRun, stacks.Tier(c));
    }

    [Fact]
    public void Under_one_caller_a_native_leaf_keeps_the_native_frames_a_managed_leaf_trims()
    {
        // Under the same native caller: a managed leaf trims the native frames rootward of it, a native leaf keeps them.
        var root = Frame(0x9000, "start_thread", Dso);
        var managed = Stack(Frame(0x1004), root);
        var native = Stack(Frame(0x9100, "JIT_New", Dso), root);
        var nativeAgain = Stack(Frame(0x9104, "JIT_New", Dso), root);
        var unnamed = Stack(Frame(0x7000), root); // in no method the code map has
        var stacks = Stacks();

        Assert.Equal(["app.dll!App.Leaf()"], Names(stacks.Frames(managed, run: null)));
        Assert.Equal(["libcoreclr.so!JIT_New", "libcoreclr.so!start_thread"], Names(stacks.Frames(native, run: null)));
        Assert.Same(stacks.Frames(native, run: null), stacks.Frames(nativeAgain, run: null));
        Assert.Null(stacks.Tier(native));
        Assert.True(stacks.LeafUnnamed(unnamed));
        Assert.False(stacks.LeafUnnamed(managed));
    }

    [Fact]
    public void One_leaf_method_under_callers_named_apart_makes_stacks_named_apart()
    {
        // A memo by the leaf's name alone would hand the first caller's frames to the second.
        var leafA = Frame(0x1004);
        var leafB = Frame(0x1008);
        var underCaller = Stack(leafA, Frame(0x2010));
        var underOther = Stack(leafB, Frame(0x3010));
        var stacks = Stacks();
        Assert.Equal(["app.dll!App.Leaf()", "app.dll!App.Caller()"], Names(stacks.Frames(underCaller, run: null)));
        Assert.Equal(["app.dll!App.Leaf()", "app.dll!App.Other()"], Names(stacks.Frames(underOther, run: null)));
    }

    [Fact]
    public void The_same_named_stack_is_one_array_whichever_way_it_was_reached()
    {
        // Two different chains of addresses that name the same methods: one array (FrameArrays), so every cache keyed
        // by the array (tags, hot methods) works once for both.
        var a = Stack(Frame(0x1004), Frame(0x2010));
        var b = Stack(Frame(0x1008), Frame(0x2020));
        var stacks = Stacks();
        Assert.Same(stacks.Frames(a, run: null), stacks.Frames(b, run: null));
    }
}
