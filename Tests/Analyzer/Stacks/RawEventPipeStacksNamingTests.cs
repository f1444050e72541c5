using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Stacks;

namespace EtwSerializerProfiler.Tests.Analyzer.Stacks;

/// <summary>
/// A raw pass names stacks in two steps: while it runs, only the methods it must recognize (the marker thread's, the
/// measured calls) as they are jitted; once the rundown has been read, every method. The pass checks its early
/// answers against the full names (TraceAnalyzer.PassState.CodeKnown); these are the two steps on hand-made stacks.
/// </summary>
public sealed class RawEventPipeStacksNamingTests
{
    private static readonly ManagedCodeMap.Method Marker = new(0x1000, 0x100, "EtwSerializerProfiler.Benchmark.MarkerThread.SerializeDuration(int32)", "?", CodeTier.Tier0, 5);
    private static readonly ManagedCodeMap.Method Wait = new(0x2000, 0x100, "System.Threading.WaitHandle.WaitOneNoCheck(int32)", "?", CodeTier.ReadyToRun, double.MinValue);

    [Fact]
    public void During_the_pass_only_the_methods_it_must_recognize_are_named()
    {
        var stacks = new RawEventPipeStacks(matcher: null);
        stacks.Loaded(Marker);
        stacks.Loaded(Wait); // not one the pass looks for: left to the end
        var stack = stacks.Intern([0x2010, 0x1010]);
        var early = stacks.Frames(stack);
        Assert.Equal(["?", Marker.Name], early.Select(f => f.Method));
        Assert.Equal("SerializeDuration", TraceAnalyzer.MarkerMethodOfFrames(early));

        stacks.Code = ManagedCodeMap.FromMethods([Marker with { Module = "SerializerBenchmark.dll" }, Wait with { Module = "System.Private.CoreLib.dll" }]);
        var full = stacks.Frames(stack);
        Assert.Equal([Wait.Name, Marker.Name], full.Select(f => f.Method));
        Assert.Equal(["System.Private.CoreLib.dll", "SerializerBenchmark.dll"], full.Select(f => f.Module));
        Assert.Equal("SerializeDuration", TraceAnalyzer.MarkerMethodOfFrames(full));
    }

    [Fact]
    public void A_marker_method_known_only_from_the_rundown_changes_the_early_answer()
    {
        // Attached after the marker's method was jitted: no load event, only the rundown at the end names it.
        var stacks = new RawEventPipeStacks(matcher: null);
        var stack = stacks.Intern([0x2010, 0x1010]);
        var early = TraceAnalyzer.MarkerMethodOfFrames(stacks.Frames(stack));
        stacks.Code = ManagedCodeMap.FromMethods([Marker, Wait]);
        var full = TraceAnalyzer.MarkerMethodOfFrames(stacks.Frames(stack));
        Assert.Null(early);
        Assert.Equal("SerializeDuration", full);
    }

    [Fact]
    public void Unknown_addresses_are_named_as_TraceLog_names_them()
    {
        var stacks = new RawEventPipeStacks(matcher: null) { Code = ManagedCodeMap.FromMethods([Wait]) };
        var frame = Assert.Single(stacks.Frames(stacks.Intern([0x9999])));
        Assert.Equal(("?", "?"), (frame.Module, frame.Method));
        Assert.True(stacks.LeafUnnamed(stacks.Intern([0x9999])));
        Assert.Equal(CodeTier.ReadyToRun, stacks.Tier(stacks.Intern([0x2020])));
    }
}
