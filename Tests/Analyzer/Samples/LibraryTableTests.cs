using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Samples;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Stacks;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Tests.Analyzer.Samples;

/// <summary>CPU by module and namespace, and the whole trace's hot methods, in a trace without runs: hand-made samples, exact answers.</summary>
public sealed class LibraryTableTests
{
    private static readonly StackFrame Main = new("App.dll", "Program.<Main>$(string[])");
    private static readonly StackFrame Quote = new("App.dll", "App.Pricing.PriceBook.Quote(float64)");
    private static readonly StackFrame Relax = new("App.dll", "App.Routing.RoutePlanner.Relax(int32[],int32)");
    private static readonly StackFrame Add = new("System.Private.CoreLib.dll", "System.Collections.Generic.List`1[System.__Canon].Add(!0)");
    private static readonly StackFrame Native = new("/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libcoreclr.so", "?");

    /// <summary>Stack 0: pricing; 1: pricing calling into CoreLib; 2: routing; 3: the runtime called from routing; 4: pricing recursing.</summary>
    private static readonly StackFrame[][] s_stacks =
    [
        [Quote, Main],
        [Add, Quote, Main],
        [Relax, Main],
        [Native, Relax, Main],
        [Quote, Quote, Main],
    ];

    private sealed class Stacks : ISampleStacks
    {
        public StackFrame[] Frames(int stackId, RunKey? run) => s_stacks[stackId];
        public CodeTier? Tier(int stackId) => null;
        public bool LeafUnnamed(int stackId) => stackId == 3;
        public bool IsMeasuredWork(int stackId) => false;
        public bool LeafIsGcPoll(int stackId) => false;
    }

    [Theory]
    [InlineData("App.dll", "System.Text.Json.JsonSerializer.Serialize(class)", "System.Text.Json")]
    [InlineData("App.dll", "System.Collections.Generic.Dictionary`2[System.__Canon,System.Int32].FindValue(!0)", "System.Collections.Generic")]
    [InlineData("App.dll", "App.Outer+<>c.<Run>b__0_0()", "App")]
    [InlineData("App.dll", "App.Pricing.PriceBook..ctor()", "App.Pricing")]
    [InlineData("App.dll", "Program.<Main>$(string[])", "(no namespace)")]
    [InlineData("libcoreclr.so", "WKS::gc_heap::mark_object", null)]
    [InlineData("App.dll", "?", null)]
    public void A_frames_namespace_is_its_method_name_less_type_and_method(string module, string method, string? expected) =>
        Assert.Equal(expected, LibraryTable.NamespaceOf(new StackFrame(module, method)));

    [Fact]
    public void Without_runs_every_thread_adds_to_modules_and_namespaces_once_per_sample_and_the_exclusive_columns_sum_to_the_cpu()
    {
        // Thread 1: stacks 0, 1, 4 (pricing, 3 samples); thread 2: 2, 3 (routing, 2 samples); 1 ms each; thread 2's
        // precise on-CPU time is 4 ms (twice its samples): its rows double, as its CPU does.
        List<CpuSample> samples = [new(1, 1, 0, false, 1, 1), new(2, 2, 2, false, 2, 1), new(1, 3, 1, false, 3, 1), new(2, 4, 3, false, 4, 1), new(1, 5, 4, false, 5, 1)];
        var charger = new SampleCharger(new SampleStream(CpuSourceKind.Perf, samples, new Stacks(), 1.0), null, new GcPauses([]))
        {
            WholeTraceHotMethods = true,
            PreciseThreadsMs = threads => [.. threads.Select(t => t.ThreadId == 2 ? 4.0 : (double?)null)],
        };
        var charges = charger.Charge([]);
        Assert.Equal(7.0, charges.Threads.Values.Sum(t => t.CpuMs), 9);

        var (modules, namespaces) = charges.WholeTraceLibraries();
        var module = modules.ToDictionary(m => m.Name);
        Assert.Equal((7.0, 4.0), (module["App"].InclusiveMs, module["App"].ExclusiveMs));
        Assert.Equal((1.0, 1.0), (module["System.Private.CoreLib"].InclusiveMs, module["System.Private.CoreLib"].ExclusiveMs));
        Assert.Equal((2.0, 2.0), (module["libcoreclr"].InclusiveMs, module["libcoreclr"].ExclusiveMs));
        Assert.Equal(7.0, modules.Sum(m => m.ExclusiveMs), 9);

        var ns = namespaces.ToDictionary(n => n.Name);
        Assert.Equal((3.0, 2.0), (ns["App.Pricing"].InclusiveMs, ns["App.Pricing"].ExclusiveMs)); // recursion counts once
        Assert.Equal((4.0, 2.0), (ns["App.Routing"].InclusiveMs, ns["App.Routing"].ExclusiveMs));
        Assert.Equal((1.0, 1.0), (ns["System.Collections.Generic"].InclusiveMs, ns["System.Collections.Generic"].ExclusiveMs));
        Assert.Equal(2.0, ns["(native) libcoreclr"].ExclusiveMs, 9);
        Assert.Equal(7.0, ns["(no namespace)"].InclusiveMs, 9);
        Assert.Equal(7.0, namespaces.Sum(n => n.ExclusiveMs), 9);
        Assert.Equal("(no namespace)", namespaces[0].Name); // most inclusive first

        var hot = charges.WholeTraceHotMethods()!;
        Assert.Equal((2.0, 3.0), (hot["App!App.Pricing.PriceBook.Quote"].ExclusiveMs, hot["App!App.Pricing.PriceBook.Quote"].InclusiveMs));
        Assert.Equal((2.0, 4.0), (hot["App!App.Routing.RoutePlanner.Relax"].ExclusiveMs, hot["App!App.Routing.RoutePlanner.Relax"].InclusiveMs));
        Assert.Equal(7.0, hot["App!Program.<Main>$"].InclusiveMs, 9);
    }

    [Fact]
    public void With_runs_nothing_is_kept_for_the_whole_trace()
    {
        var run = new RunDraft { Key = new RunKey("Ser", "deserialize", 100, 1), StartMs = 0, EndMs = 10, WorkerThreadId = 1, MarkerThreadId = 9 };
        var charges = new SampleCharger(new SampleStream(CpuSourceKind.Perf, [new(1, 1, 0, false, 1, 1)], new Stacks(), 1.0), null, new GcPauses([])) { WholeTraceHotMethods = true }.Charge([run]);
        Assert.Null(charges.WholeTraceHotMethods());
        Assert.Empty(charges.WholeTraceLibraries().Modules);
    }
}
