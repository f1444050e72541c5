using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Samples;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Stacks;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Tests.Analyzer.Samples;

/// <summary>The one charging stage on hand-made samples, with exact answers.</summary>
public sealed class SampleChargerTests
{
    private const int Worker = 10;
    private const int Marker = 11;
    private const int Helper = 12;

    /// <summary>Stack 0: the serializer's code; 1: a helper thread in the measured call; 2: idle spinning; 3: a GC-poll leaf over the serializer.</summary>
    private static readonly StackFrame[][] s_stacks =
    [
        [new("Ser.dll", "Ser.Reader.Read()"), new("SerializerBenchmark.dll", "X.BenchmarkRunner.DeserializeRun(int)")],
        [new("Ser.dll", "Ser.Reader.Parse()"), new("SerializerBenchmark.dll", "X.BenchmarkRunner.DeserializeRun(int)")],
        [new("System.Private.CoreLib.dll", "System.Threading.PortableThreadPool.Spin()")],
        [new("System.Private.CoreLib.dll", "System.Threading.Thread.PollGC()"), new("Ser.dll", "Ser.Reader.Read()"), new("SerializerBenchmark.dll", "X.BenchmarkRunner.DeserializeRun(int)")],
    ];

    private static readonly StackTagMatcher s_tags = new(StackTagFile.Parse("""
        <Tag Name="">
          <Tag Name="Deserialize"><Tag Name="Ser"><Entrypoint Module="Ser.dll" Method="*"/></Tag></Tag>
          <Tag Name="GC" Priority="20"><Entrypoint Module="libcoreclr.so" Method="WKS::gc_heap::*"/></Tag>
        </Tag>
        """, "test"));

    private sealed class Stacks : ISampleStacks
    {
        public StackFrame[] Frames(int stackId, RunKey? run) => stackId < 0 ? [] : s_stacks[stackId];
        public CodeTier? Tier(int stackId) => stackId == 0 ? CodeTier.Tier1 : stackId < 0 ? null : CodeTier.Tier0;
        public bool LeafUnnamed(int stackId) => false;
        public bool IsMeasuredWork(int stackId) => MeasuredCalls.Any(Frames(stackId, null));
        public bool LeafIsGcPoll(int stackId) => stackId == 3;
    }

    private static RunDraft Run() => new() { Key = new RunKey("Ser", "deserialize", 100, 1), StartMs = 10, EndMs = 20, WorkerThreadId = Worker, MarkerThreadId = Marker };

    private static CpuSample Timer(int thread, double ms, int stack, bool inGc = false) => new(thread, ms, stack, inGc, ms, 1.0);

    [Fact]
    public void A_timer_sampler_charges_one_period_per_sample_of_the_worker_or_a_measured_call_inside_the_window()
    {
        var run = Run();
        List<CpuSample> samples =
        [
            Timer(Worker, 9.5, 0),   // before the window
            Timer(Worker, 10, 0),    // at its start: in
            Timer(Marker, 12, 0),    // the marker thread: never
            Timer(Helper, 13, 2),    // another thread, idle: not the run's
            Timer(Helper, 14, 1),    // another thread in the measured call: the run's
            Timer(Worker, 15, 0, inGc: true), // GC work on the worker: tagged GC through the frames
            Timer(Worker, 20, 0),    // at its end: out
        ];
        var charges = new SampleCharger(new SampleStream(CpuSourceKind.Perf, samples, new Stacks(), 1.0), s_tags, new GcPauses([new Interval(14.5, 15.5)])).Charge([run]);
        var a = charges.Of(run)!;
        Assert.Equal(3.0, a.CpuMs, 9);
        Assert.Equal(3, a.Samples);
        Assert.Equal(2.0, a.Tags[@"Deserialize\Ser"], 9);
        Assert.Equal(1.0, a.Tags["GC"], 9);
        Assert.Equal(2.0, a.TierMs[CodeTier.Tier1], 9); // stacks 0 (the GC sample's stack too)
        Assert.Equal(1.0, a.TierMs[CodeTier.Tier0], 9);
        Assert.Equal(3.0, charges.Ledger.Sum(s => s.WeightMs), 9);
        var hot = charges.HotMethods([run])[("Ser", "deserialize", 100)];
        Assert.Equal((2.0, 2.0), (Math.Round(hot["Ser!Ser.Reader.Read"].ExclusiveMs, 9), Math.Round(hot["Ser!Ser.Reader.Read"].InclusiveMs, 9)));
        Assert.Equal(3.0, hot["SerializerBenchmark!X.BenchmarkRunner.DeserializeRun"].InclusiveMs, 9);
        // The whole trace by thread: every sample on its own thread, the marker's and the idle helper's too.
        Assert.Equal(7, charges.Threads.Values.Sum(t => t.Samples));
        Assert.Equal(2.0, charges.Threads[Helper].CpuMs, 9);
    }

    [Fact]
    public void A_crew_threads_samples_inside_the_window_are_the_runs_whatever_they_run_and_scaled_with_the_workers()
    {
        // --threads: the run names its crew (RunThread events); a crew thread's idle spin inside the window is the
        // run's too (its thread clock counts it), outside the window it is not; the marker never is.
        var run = Run();
        run.CrewThreadIds.AddRange([Helper, 13]);
        List<CpuSample> samples =
        [
            Timer(Helper, 9.5, 1),   // before the window
            Timer(Helper, 11, 2),    // crew, idle: the run's
            Timer(13, 12, 1),        // crew, in the call
            Timer(Marker, 12.5, 1),  // the marker: never
            Timer(14, 13, 2),        // not the crew, idle: not the run's
            Timer(14, 14, 1),        // not the crew, in the measured call: the run's, as before
            Timer(Worker, 15, 0),    // the worker
            Timer(13, 21, 1),        // after the window
        ];
        var precise = new SampleCharger(new SampleStream(CpuSourceKind.Perf, samples, new Stacks(), 1.0), s_tags, new GcPauses([]))
        {
            PreciseRunMs = r => r == run ? 8.0 : null, // the worker's and the crew's switches: scaled from the samples' 4 ms
        }.Charge([run]);
        var a = precise.Of(run)!;
        Assert.Equal(4, a.Samples);
        Assert.Equal(8.0, a.CpuMs, 9);
        Assert.Equal(8.0, a.Tags.Values.Sum(), 9);
        Assert.Equal(8.0, precise.Ledger.Sum(e => e.WeightMs), 9);
        Assert.Equal([10, 12, 13, 14], precise.Ledger.Select(e => e.ThreadId).Order());
    }

    /// <summary>
    /// Stacks that name a run's frames apart from the thread's (a repaired frame: stack 0 becomes stack 1's frames in
    /// a run) and count namings that overlap: naming caches as it goes, so it must never run on two threads at once.
    /// Asking again with no run for a stack already named with none only reads (the contract of
    /// <see cref="ISampleStacks.Frames"/>), and may run beside anything.
    /// </summary>
    private sealed class OneNamerStacks : ISampleStacks
    {
        private readonly System.Collections.Concurrent.ConcurrentDictionary<int, bool> _named = new();
        private int _naming;
        public int Overlaps;
        public StackFrame[] Frames(int stackId, RunKey? run)
        {
            if (stackId < 0) return [];
            if (run is null && _named.ContainsKey(stackId)) return s_stacks[stackId];
            if (Interlocked.Increment(ref _naming) > 1) Interlocked.Increment(ref Overlaps);
            Thread.SpinWait(50);
            if (run is null) _named[stackId] = true;
            Interlocked.Decrement(ref _naming);
            return run is null ? s_stacks[stackId] : s_stacks[stackId == 0 ? 1 : stackId];
        }
        public CodeTier? Tier(int stackId) => null;
        public bool LeafUnnamed(int stackId) => false;
        public bool IsMeasuredWork(int stackId) => false;
        public bool LeafIsGcPoll(int stackId) => false;
    }

    [Fact]
    public void Runs_and_threads_charged_side_by_side_see_their_own_frames_and_never_name_a_stack_from_two_threads_at_once()
    {
        var run = Run();
        // Thousands of samples so the two sides overlap in time; all of the worker's are in the window. A stack first
        // seen near the end: the threads' side, which only reads, gets there while the runs' side is still naming.
        var samples = Enumerable.Range(0, 20_000).Select(i => Timer(Worker, 10 + i * 0.0004, i < 18_000 ? 0 : 3)).ToList();
        var stacks = new OneNamerStacks();
        var tags = new StackTagMatcher(StackTagFile.Parse("""
            <Tag Name="">
              <Tag Name="Read"><Entrypoint Module="Ser.dll" Method="Ser.Reader.Read*"/></Tag>
              <Tag Name="Parse"><Entrypoint Module="Ser.dll" Method="Ser.Reader.Parse*"/></Tag>
            </Tag>
            """, "test"));
        var charges = new SampleCharger(new SampleStream(CpuSourceKind.Perf, samples, stacks, 1.0), tags, new GcPauses([])).Charge([run]);
        Assert.Equal(0, stacks.Overlaps);
        // The run's samples carry the repaired frames, the thread's the frames as sampled.
        Assert.Equal(18_000.0, charges.Of(run)!.Tags["Parse"], 6);
        Assert.Equal(2_000.0, charges.Of(run)!.Tags["Read"], 6);
        Assert.Equal(20_000.0, charges.Threads[Worker].Tags["Read"], 6);
        Assert.False(charges.Threads[Worker].Tags.ContainsKey("Parse"));
    }

    [Fact]
    public void A_gap_sampler_weighs_the_time_since_the_threads_last_sample_from_the_window_start_with_GC_pauses_apart()
    {
        var run = Run();
        // EventPipe: each sample stands for the gap since the thread's previous one; a 1 ms GC pause (16-17) in the
        // second gap is the GC's; the first gap starts before the window, so only its part inside counts.
        List<CpuSample> samples =
        [
            new(Worker, 12, 0, false, SinceMs: 8, CapMs: 50),
            new(Worker, 18, 3, false, SinceMs: 12, CapMs: 50),
            new(Worker, 19, 0, false, SinceMs: 18, CapMs: 0.5), // capped: a starved sampler, not work
        ];
        var charges = new SampleCharger(new SampleStream(CpuSourceKind.EventPipe, samples, new Stacks(), 0), s_tags, new GcPauses([new Interval(16, 17)])).Charge([run]);
        var a = charges.Of(run)!;
        Assert.Equal(2 + 5 + 1 + 0.5, a.CpuMs, 9);
        Assert.Equal(1.0, a.Tags["GC"], 9);
        Assert.Equal(2 + 5 + 0.5, a.Tags[@"Deserialize\Ser"], 9);
        Assert.Equal(1, a.GcPollLeafSamples);
        // The pause is drawn as its own frame in the call trees, before the stack that ran after it.
        Assert.Equal([2.0, 1.0, 5.0, 0.5], charges.Ledger.Select(s => Math.Round(s.WeightMs, 9)));
        Assert.True(charges.Ledger[1].Pause);
        // The GC-poll leaf gives its exclusive time to the method that polled.
        var hot = charges.HotMethods([run])[("Ser", "deserialize", 100)];
        Assert.Equal(7.5, hot["Ser!Ser.Reader.Read"].ExclusiveMs, 9);
        Assert.False(hot.ContainsKey("System.Private.CoreLib!System.Threading.Thread.PollGC"));
    }

    [Fact]
    public void A_precise_total_scales_every_weight_of_the_run_so_tags_tiers_hot_methods_and_call_trees_agree()
    {
        var run = Run();
        List<CpuSample> samples = [Timer(Worker, 11, 0), Timer(Worker, 12, 0), Timer(Worker, 13, 1), Timer(Worker, 14, 0, inGc: true)];
        var charges = new SampleCharger(new SampleStream(CpuSourceKind.Perf, samples, new Stacks(), 1.0), s_tags, new GcPauses([new Interval(13.5, 14.5)]))
        {
            PreciseRunMs = _ => 6.0, // the context switches say 6 ms on the CPU where 4 samples were taken
        }.Charge([run]);
        var a = charges.Of(run)!;
        Assert.Equal(6.0, a.CpuMs, 9);
        Assert.Equal(6.0, a.Tags.Values.Sum(), 9);
        Assert.Equal(1.5, a.Tags["GC"], 9);
        Assert.Equal(6.0, a.TierMs.Values.Sum() + a.NoTierMs, 9);
        Assert.Equal(6.0, charges.Ledger.Sum(s => s.WeightMs), 9);
        Assert.Equal(6.0, charges.HotMethods([run])[("Ser", "deserialize", 100)]["SerializerBenchmark!X.BenchmarkRunner.DeserializeRun"].InclusiveMs, 9);
    }

    [Fact]
    public void A_charge_fed_in_chunks_scales_to_the_precise_totals_known_only_once_every_chunk_is_in()
    {
        // Two runs, the second's samples split over two chunks; the precise totals (a long kernel session's switches,
        // read with its samples) are asked only when the charge finishes, and each run and thread scales to its own.
        var first = Run();
        var second = new RunDraft { Key = new RunKey("Ser", "deserialize", 100, 2), StartMs = 30, EndMs = 40, WorkerThreadId = Worker, MarkerThreadId = Marker };
        var preciseKnown = false;
        var charger = new SampleCharger(new SampleStream(CpuSourceKind.Perf, [], new Stacks(), 1.0), s_tags, new GcPauses([]))
        {
            PreciseRunMs = run => preciseKnown ? (ReferenceEquals(run, first) ? 4.0 : 1.5) : throw new InvalidOperationException("asked before the last chunk"),
            PreciseThreadsMs = threads => [.. threads.Select(t => preciseKnown ? 8.0 : throw new InvalidOperationException("asked before the last chunk"))],
        };
        var charging = charger.Begin([second, first]);
        charging.Add(new SampleStream(CpuSourceKind.Perf, [Timer(Worker, 11, 0), Timer(Worker, 12, 1), Timer(Worker, 31, 0)], new Stacks(), 1.0));
        charging.Add(new SampleStream(CpuSourceKind.Perf, [Timer(Worker, 32, 0), Timer(Worker, 33, 1)], new Stacks(), 1.0));
        preciseKnown = true;
        var charges = charging.Finish();
        Assert.Equal(4.0, charges.Of(first)!.CpuMs, 9);
        Assert.Equal(4.0, charges.Of(first)!.Tags.Values.Sum(), 9);
        Assert.Equal(1.5, charges.Of(second)!.CpuMs, 9);
        Assert.Equal(1.5, charges.Of(second)!.Tags.Values.Sum(), 9);
        Assert.Equal(3, charges.Of(second)!.Samples);
        Assert.Equal(5.5, charges.Ledger.Sum(s => s.WeightMs), 9);
        Assert.Equal(1.5, charges.HotMethods([second])[("Ser", "deserialize", 100)]["SerializerBenchmark!X.BenchmarkRunner.DeserializeRun"].InclusiveMs, 9);
        Assert.Equal(8.0, charges.Threads[Worker].CpuMs, 9);
        Assert.Same(charges, charging.Finish());
        Assert.Throws<InvalidOperationException>(() => charging.Add(new SampleStream(CpuSourceKind.Perf, [], new Stacks(), 1.0)));
    }

    [Fact]
    public void Threads_precise_totals_are_asked_for_once_for_all_threads_and_scale_each_threads_weights()
    {
        List<CpuSample> samples = [Timer(Worker, 11, 0), Timer(Helper, 12, 2), Timer(Worker, 13, 0), Timer(Helper, 14, 2)];
        var asked = new List<IReadOnlyList<(int ThreadId, double FirstMs, double LastMs)>>();
        var charges = new SampleCharger(new SampleStream(CpuSourceKind.Perf, samples, new Stacks(), 1.0), s_tags, new GcPauses([]))
        {
            // The switches know the worker (3 ms on the CPU where 2 samples were taken), not the helper.
            PreciseThreadsMs = threads =>
            {
                asked.Add(threads);
                return [.. threads.Select(t => t.ThreadId == Worker ? 3.0 : (double?)null)];
            },
        }.Charge([]);
        var only = Assert.Single(asked);
        Assert.Equal([(Worker, 11.0, 13.0), (Helper, 12.0, 14.0)], only.OrderBy(t => t.ThreadId));
        Assert.Equal(3.0, charges.Threads[Worker].CpuMs, 9);
        Assert.Equal(3.0, charges.Threads[Worker].Tags.Values.Sum(), 9);
        Assert.Equal(2.0, charges.Threads[Helper].CpuMs, 9);
    }

    [Fact]
    public void Runs_found_without_names_are_voted_for_by_their_samples()
    {
        var run = Run();
        run.Key = run.Key with { Serializer = EtwSerializerProfiler.Analyzer.Harness.StackTagRunNames.Unnamed };
        var charges = new SampleCharger(new SampleStream(CpuSourceKind.Perf, [Timer(Worker, 11, 0), Timer(Worker, 12, 1)], new Stacks(), 1.0), s_tags, new GcPauses([])).Charge([run]);
        Assert.Equal(2.0, charges.NameVotes[run]["Ser"], 9);
    }
}

/// <summary>Time in the stripped native runtime, named by the managed method that called into it, and counted as unnamed.</summary>
public sealed class NativeRuntimeCallerTests
{
    private static readonly StackFrame[] s_stack =
    [
        new("libcoreclr.so", "?"), new("libcoreclr.so", "?"), new("Ser.dll", "Ser.Reader.Read()"), new("SerializerBenchmark.dll", "X.BenchmarkRunner.DeserializeRun(int)"),
    ];

    private sealed class Stacks : ISampleStacks
    {
        public StackFrame[] Frames(int stackId, RunKey? run) => s_stack;
        public CodeTier? Tier(int stackId) => CodeTier.Tier1;
        public bool LeafUnnamed(int stackId) => true;
        public bool IsMeasuredWork(int stackId) => true;
        public bool LeafIsGcPoll(int stackId) => false;
    }

    [Fact]
    public void Stripped_runtime_time_is_listed_by_its_managed_caller_and_counted_unnamed()
    {
        var run = new RunDraft { Key = new RunKey("Ser", "deserialize", 1, 1), StartMs = 0, EndMs = 10, WorkerThreadId = 1 };
        var charges = new SampleCharger(new SampleStream(CpuSourceKind.Perf, [new CpuSample(1, 5, 0, false, 5, 1.0)], new Stacks(), 1.0), null, new GcPauses([])).Charge([run]);
        var hot = charges.HotMethods([run])[("Ser", "deserialize", 1)];
        // The caller is a child of the unnamed row, not a row beside it: the sample is counted once.
        Assert.Equal(1.0, hot["libcoreclr!?"].ExclusiveMs, 9);
        Assert.Equal([new HotMethodCaller("native", "Ser!Ser.Reader.Read", 1.0)], hot["libcoreclr!?"].CalledFrom);
        Assert.DoesNotContain(hot.Keys, k => k.Contains("called from", StringComparison.Ordinal));
        Assert.Equal(1.0, hot.Values.Sum(m => m.ExclusiveMs), 9);
        Assert.Equal(1.0, charges.Of(run)!.UnnamedLeafMs, 9);
    }
}
