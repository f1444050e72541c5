using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Samples;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Stacks;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Tests.Analyzer.Samples;

/// <summary>
/// The native runtime split (docs/analyzer.md, "Native runtime") on hand-made samples with the built-in tags: a
/// sample ending in native code takes what the runtime's events say its thread was doing (GC pause, JIT span, type
/// load span), or is a stub when its leaf is in no module and no method; what nothing explains is counted unexplained.
/// </summary>
public sealed class NativeExplanationTests
{
    private const int Worker = 1;
    private const int Other = 2;
    private const string Stripped = @"Native runtime\Runtime (libcoreclr, stripped)";
    private const string TypeLoading = @"Native runtime\Type loading";
    private const string Stubs = @"Native runtime\Stubs (no module, no method)";

    private static readonly StackFrame Runtime = new("libcoreclr.so", "?");
    private static readonly StackFrame Serializer = new("SerializerBenchmark.dll", "EtwSerializerProfiler.Benchmark.Serializers.NewtonsoftJsonSerializer.Deserialize(class System.IO.Stream)");
    private static readonly StackFrame Measured = new("SerializerBenchmark.dll", "EtwSerializerProfiler.Benchmark.Runs.BenchmarkRunner.DeserializeRun(int32)");

    /// <summary>The stacks by id, leaf first.</summary>
    private static readonly StackFrame[][] s_stacks =
    [
        // 0: the stripped runtime called from the serializer
        [Runtime, Runtime, Serializer, Measured],
        // 1: the serializer's own code
        [Serializer, Measured],
        // 2: the stripped runtime under MakeGenericType (reflection owns it)
        [Runtime, new("System.Private.CoreLib.dll", "System.RuntimeType.MakeGenericType(class System.Type[])"), Serializer, Measured],
        // 3: a stub: code perf found in the JIT's memory that no method event names
        [new("jitted-code", "?"), Serializer, Measured],
        // 4: a dynamic method (named, in no module): managed code, not a stub
        [new("?", "dynamicClass.ReadBook(class System.IO.Stream)"), Serializer, Measured],
        // 5: the JIT's own frames
        [new("libclrjit.so", "?"), Runtime, Serializer, Measured],
        // 6: a page fault in the runtime
        [new("kernel", "clear_page_erms"), new("kernel", "asm_exc_page_fault"), Runtime, Serializer, Measured],
    ];

    private static readonly StackTagMatcher s_tags = new(StackTagFile.Parse(SerializerStackTagsGenerator.Generate(
        [new SerializerTagInfo("Newtonsoft.Json", "EtwSerializerProfiler.Benchmark.Serializers.NewtonsoftJsonSerializer")]), "built-in"));

    private sealed class Stacks : ISampleStacks
    {
        public StackFrame[] Frames(int stackId, RunKey? run) => stackId < 0 ? [] : s_stacks[stackId];
        public CodeTier? Tier(int stackId) => CodeTier.Tier1;
        public bool LeafUnnamed(int stackId) => stackId >= 0 && s_stacks[stackId][0].Method == StackFrame.Unresolved;
        public bool IsMeasuredWork(int stackId) => true;
        public bool LeafIsGcPoll(int stackId) => false;
        /// <summary>Stack 0's serializer frame returns to 0x1010 (a throw's call site below); the page fault's (6) to 0x1020.</summary>
        public ulong ManagedCallerAddress(int stackId) => stackId switch { 0 => 0x1010, 6 => 0x1020, _ => 0 };
    }

    /// <summary>Worker: JIT 10-20 ms with a type load it asked for at 12-14; type loads 30-40 (one nested at 32-33); GC pause 15-16; the other thread nothing.</summary>
    private static RuntimeWork Work()
    {
        var b = new RuntimeWork.Builder();
        b.Start(Worker, RuntimeWorkKind.TypeLoad, 1, 12);
        b.Stop(Worker, RuntimeWorkKind.TypeLoad, 1, 14);
        b.Add(Worker, RuntimeWorkKind.Jit, new Interval(10, 20));
        b.Start(Worker, RuntimeWorkKind.TypeLoad, 2, 30);
        b.Start(Worker, RuntimeWorkKind.TypeLoad, 3, 32);
        b.Stop(Worker, RuntimeWorkKind.TypeLoad, 3, 33);
        b.Stop(Worker, RuntimeWorkKind.TypeLoad, 2, 40);
        return b.Build();
    }

    private static (string Tag, CpuAccount Account) Charge(int thread, double ms, int stack, bool inGc = false)
    {
        var run = new RunDraft { Key = new RunKey("Newtonsoft.Json", "deserialize", 1, 1), StartMs = 0, EndMs = 100, WorkerThreadId = thread };
        var charges = new SampleCharger(new SampleStream(CpuSourceKind.Perf, [new CpuSample(thread, ms, stack, inGc, ms, 1.0)], new Stacks(), 1.0), s_tags, new GcPauses([new Interval(15, 16)]))
        {
            Work = Work(),
        }.Charge([run]);
        var account = charges.Of(run)!;
        return (Assert.Single(account.Tags).Key, account);
    }

    /// <summary>
    /// ETW's profile interrupts (Windows) are marked in a GC pause as perf's are, so the same sample is GC whichever
    /// kernel sampled it: the pass collects them before it knows the pauses, EtwSampleSource marks them after.
    /// </summary>
    [Fact]
    public void An_etw_sample_in_a_gc_pause_is_gc_as_a_perf_sample_is()
    {
        var pauses = new GcPauses([new Interval(15, 16), new Interval(40, 41)]);
        // Out of time order on purpose: the marks do not walk.
        List<CpuSample> samples = [new(Worker, 40.5, 0, false, 40.5, 1.0), new(Worker, 15.5, 0, false, 15.5, 1.0), new(Worker, 16, 0, false, 16, 1.0), new(Worker, 25, 0, false, 25, 1.0)];
        var stream = EtwSampleSource.Stream(samples, new Stacks(), 1.0, pauses);
        Assert.Equal(CpuSourceKind.EtwProfile, stream.Kind);
        Assert.Equal([true, true, false, false], stream.Samples.Select(s => s.InGc));

        var run = new RunDraft { Key = new RunKey("Newtonsoft.Json", "deserialize", 1, 1), StartMs = 0, EndMs = 100, WorkerThreadId = Worker };
        var inPause = new SampleCharger(EtwSampleSource.Stream([new(Worker, 15.5, 0, false, 15.5, 1.0)], new Stacks(), 1.0, pauses), s_tags, pauses).Charge([run]);
        Assert.Equal(StackTagMatcher.Gc, Assert.Single(inPause.Of(run)!.Tags).Key);
        Assert.Equal(StackTagMatcher.Gc, Charge(Worker, 15.5, 0, inGc: true).Tag);
    }

    [Fact]
    public void Native_runtime_time_inside_the_threads_JIT_span_is_JIT_and_explained()
    {
        var (tag, a) = Charge(Worker, 11, 0);
        Assert.Equal("JIT", tag);
        Assert.Equal(1.0, a.UnnamedLeafMs, 9);
        Assert.Equal(0.0, a.UnexplainedLeafMs, 9);
        // A page fault in the JIT span is the JIT's too.
        Assert.Equal("JIT", Charge(Worker, 11, 6).Tag);
    }

    [Fact]
    public void The_same_stack_on_a_thread_without_a_span_stays_the_stripped_runtime_and_unexplained()
    {
        var (tag, a) = Charge(Other, 11, 0);
        Assert.Equal(Stripped, tag);
        Assert.Equal(1.0, a.UnexplainedLeafMs, 9);
        // Outside the worker's spans too (before, between, after).
        Assert.Equal(Stripped, Charge(Worker, 25, 0).Tag);
        Assert.Equal(Stripped, Charge(Worker, 20, 0).Tag); // a span ends where its stop event is
    }

    [Fact]
    public void Managed_code_running_inside_a_span_keeps_its_own_tag()
    {
        Assert.Equal(@"Deserialize\Newtonsoft.Json", Charge(Worker, 11, 1).Tag);
        Assert.Equal(@"Deserialize\Newtonsoft.Json", Charge(Worker, 35, 4).Tag);
    }

    [Fact]
    public void A_type_load_the_JIT_asked_for_is_JIT_and_a_type_load_of_its_own_is_type_loading()
    {
        Assert.Equal("JIT", Charge(Worker, 13, 0).Tag);
        Assert.Equal(TypeLoading, Charge(Worker, 31, 0).Tag);
        Assert.Equal(TypeLoading, Charge(Worker, 32.5, 0).Tag); // a nested load is the outer one's
        Assert.Equal(0.0, Charge(Worker, 31, 0).Account.UnexplainedLeafMs, 9);
    }

    [Fact]
    public void Type_loading_under_reflection_is_type_loading_and_reflections_other_native_time_stays_reflection()
    {
        Assert.Equal(TypeLoading, Charge(Worker, 35, 2).Tag);
        Assert.StartsWith("Reflection\\", Charge(Other, 35, 2).Tag, StringComparison.Ordinal);
    }

    [Fact]
    public void A_GC_pause_inside_a_JIT_span_is_GC()
    {
        Assert.Equal("GC", Charge(Worker, 15.5, 0, inGc: true).Tag);
        Assert.Equal(0.0, Charge(Worker, 15.5, 0, inGc: true).Account.UnexplainedLeafMs, 9);
    }

    [Fact]
    public void A_leaf_in_no_module_and_no_method_is_a_stub_a_named_dynamic_method_is_code()
    {
        var (tag, a) = Charge(Other, 50, 3);
        Assert.Equal(Stubs, tag);
        Assert.Equal(1.0, a.UnnamedLeafMs, 9);
        Assert.Equal(0.0, a.UnexplainedLeafMs, 9);
        Assert.Equal(@"Deserialize\Newtonsoft.Json", Charge(Other, 50, 4).Tag);
    }

    [Fact]
    public void Hot_methods_name_the_runtimes_work_by_its_caller_where_the_events_say_it()
    {
        var run = new RunDraft { Key = new RunKey("Newtonsoft.Json", "deserialize", 1, 1), StartMs = 0, EndMs = 100, WorkerThreadId = Worker };
        List<CpuSample> samples = [new(Worker, 11, 0, false, 11, 1.0), new(Worker, 31, 0, false, 31, 1.0), new(Worker, 50, 0, false, 50, 1.0)];
        var charges = new SampleCharger(new SampleStream(CpuSourceKind.Perf, samples, new Stacks(), 1.0), s_tags, new GcPauses([])) { Work = Work() }.Charge([run]);
        var hot = charges.HotMethods([run])[("Newtonsoft.Json", "deserialize", 1)];
        const string Caller = "SerializerBenchmark!EtwSerializerProfiler.Benchmark.Serializers.NewtonsoftJsonSerializer.Deserialize";
        var callers = hot["libcoreclr!?"].CalledFrom.ToDictionary(c => c.Display, c => c.ExclusiveMs);
        Assert.Equal(1.0, callers[$"JIT, called from {Caller}"], 9);
        Assert.Equal(1.0, callers[$"type loading, called from {Caller}"], 9);
        Assert.Equal(1.0, callers[$"native, called from {Caller}"], 9);
        Assert.Equal(3.0, hot["libcoreclr!?"].ExclusiveMs, 9);
    }

    /// <summary>
    /// After the stackless session stopped (a high throw rate), no throw event spans a dispatch: a native sample is
    /// exception work when its serializer frame returns to where a sampled throw was thrown from (0x1010: the throw
    /// helper's call), and stays the stripped runtime when it returns elsewhere (0x1020: another native call).
    /// </summary>
    [Fact]
    public void Native_time_called_from_a_sampled_throws_call_site_is_exception_work()
    {
        var method = new ManagedCodeMap.Method(0x1000, 0x100, "EtwSerializerProfiler.Benchmark.Serializers.NewtonsoftJsonSerializer.Deserialize(class System.IO.Stream)", "SerializerBenchmark.dll", CodeTier.Tier1, 0);
        var dispatch = new ManagedCodeMap.Method(0x2000, 0x100, "System.Runtime.EH.DispatchEx(class System.Runtime.StackFrameIterator&)", "System.Private.CoreLib.dll", CodeTier.Tier1, 0);
        var code = ManagedCodeMap.FromMethods([method, dispatch]);
        // Leaf first: native (event), the runtime's dispatch (skipped), the thrower at 0x1010.
        var sites = ThrowCallSites.From([[0x7f00_0000, 0x2010, 0x7f00_0100, 0x1010, 0x3000]], code)!;
        Assert.Equal(1, sites.Count);
        Assert.True(sites.Contains(0x1010));
        Assert.Null(ThrowCallSites.From([[0x7f00_0000]], code)); // no managed thrower: no sites

        string Tag(double ms, int stack)
        {
            var run = new RunDraft { Key = new RunKey("Newtonsoft.Json", "deserialize", 1, 1), StartMs = 0, EndMs = 100, WorkerThreadId = Other };
            var charges = new SampleCharger(new SampleStream(CpuSourceKind.Perf, [new CpuSample(Other, ms, stack, false, ms, 1.0)], new Stacks(), 1.0), s_tags, new GcPauses([]))
            {
                Work = Work(),
                ThrowSites = sites,
            }.Charge([run]);
            return Assert.Single(charges.Of(run)!.Tags).Key;
        }
        Assert.Equal("Exceptions", Tag(50, 0));
        Assert.Equal(Stripped, Charge(Other, 50, 0).Tag); // without the sites
        Assert.Equal(Charge(Other, 50, 6).Tag, Tag(50, 6)); // returns elsewhere: as without the sites
    }

    [Fact]
    public void The_JITs_own_frames_are_JIT_by_module_and_not_unexplained()
    {
        var (tag, a) = Charge(Other, 50, 5);
        Assert.Equal("JIT", tag);
        Assert.Equal(0.0, a.UnexplainedLeafMs, 9);
    }
}

/// <summary>Spans from start/stop events: outermost only, matched by id, abandoned starts do not swallow later spans.</summary>
public sealed class RuntimeWorkTests
{
    [Fact]
    public void Nested_type_loads_make_one_span_and_unmatched_stops_are_ignored()
    {
        var b = new RuntimeWork.Builder();
        b.Stop(1, RuntimeWorkKind.TypeLoad, 9, 1); // its start was before the trace
        b.Start(1, RuntimeWorkKind.TypeLoad, 1, 10);
        b.Start(1, RuntimeWorkKind.TypeLoad, 2, 11);
        b.Stop(1, RuntimeWorkKind.TypeLoad, 2, 12);
        b.Stop(1, RuntimeWorkKind.TypeLoad, 1, 15);
        Assert.Equal(5.0, b.TotalMs(RuntimeWorkKind.TypeLoad), 9);
        var work = b.Build();
        Assert.Null(work.At(1, 9.9));
        Assert.Equal(RuntimeWorkKind.TypeLoad, work.At(1, 14.9));
        Assert.Null(work.At(1, 15));
        Assert.Null(work.At(2, 12));
    }

    [Fact]
    public void A_JIT_start_without_its_MethodLoad_is_dropped_and_the_next_method_still_makes_a_span()
    {
        // JitCollector pairs the events; its spans are what the builder keeps.
        var jit = new EtwSerializerProfiler.Analyzer.Processing.Collectors.JitCollector();
        var b = new RuntimeWork.Builder();
        jit.Start(1, 100, 10, inRun: false); // the JIT failed: no MethodLoad
        jit.Start(1, 200, 20, inRun: false);
        Assert.Null(jit.Loaded(1, 100, 21, null, null));
        b.Add(1, RuntimeWorkKind.Jit, jit.Loaded(1, 200, 25, null, null)!.Value);
        Assert.Equal(5.0, b.TotalMs(RuntimeWorkKind.Jit), 9);
        var work = b.Build();
        Assert.Null(work.At(1, 15));
        Assert.Equal(RuntimeWorkKind.Jit, work.At(1, 22));
    }

    [Fact]
    public void Where_spans_of_both_kinds_hold_a_time_the_one_that_began_first_wins()
    {
        var b = new RuntimeWork.Builder();
        b.Start(1, RuntimeWorkKind.TypeLoad, 1, 10);
        b.Start(1, RuntimeWorkKind.Jit, 7, 11);
        b.Stop(1, RuntimeWorkKind.Jit, 7, 12);
        b.Stop(1, RuntimeWorkKind.TypeLoad, 1, 13);
        var work = b.Build();
        Assert.Equal(RuntimeWorkKind.TypeLoad, work.At(1, 11.5));
    }
}

/// <summary>Native frames above the owner only called into managed code: their tags do not take its samples.</summary>
public sealed class NativeCallerFramesTests
{
    private static readonly StackTagMatcher s_tags = new(StackTagFile.Parse(SerializerStackTagsGenerator.Generate(
        [new SerializerTagInfo("Newtonsoft.Json", "EtwSerializerProfiler.Benchmark.Serializers.NewtonsoftJsonSerializer")]), "built-in"));

    private static readonly StackFrame Harness = new("SerializerBenchmark.dll", "EtwSerializerProfiler.Benchmark.Runs.RunScope.Measure(class System.Action)");

    [Fact]
    public void Code_the_runtime_called_through_an_invoke_is_not_native_runtime()
    {
        // Untagged work called by the runtime's native invoke frames (interpreted MethodInfo.Invoke): by WPA's rule the
        // deepest tagged frame, the stripped runtime between, took it (measured: the invoke workload's arithmetic).
        StackFrame[] invoked =
        [
            new("KnownAnswer.dll", "Work.Compute(int32)"), new("libcoreclr.so", "?"), new("libcoreclr.so", "?"),
            new("System.Private.CoreLib.dll", "System.Reflection.MethodBaseInvoker.InterpretedInvoke_Method(class System.Object,int*)"), Harness,
        ];
        Assert.Equal("Test Infrastructure", s_tags.Classify(invoked));
    }

    [Fact]
    public void Native_frames_below_the_owner_still_say_what_the_time_was()
    {
        StackFrame[] allocating = [new("libc.so.6", "__memset_avx512_unaligned_erms"), new("libcoreclr.so", "?"), new("KnownAnswer.dll", "Work.Compute(int32)"), Harness];
        Assert.Equal(@"Native runtime\Memory clearing", s_tags.Classify(allocating));
        StackFrame[] stripped = [new("libcoreclr.so", "?"), new("KnownAnswer.dll", "Work.Compute(int32)"), Harness];
        Assert.Equal(@"Native runtime\Runtime (libcoreclr, stripped)", s_tags.Classify(stripped));
        // A thread with no managed frame at all keeps its native tags.
        Assert.Equal(@"Native runtime\Runtime (libcoreclr, stripped)", s_tags.Classify([new("libcoreclr.so", "?"), new("libc.so.6", "start_thread")]));
    }
}
