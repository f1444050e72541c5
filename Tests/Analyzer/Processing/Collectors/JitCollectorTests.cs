using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using static EtwSerializerProfiler.Tests.Analyzer.Processing.Collectors.CollectorInputs;

namespace EtwSerializerProfiler.Tests.Analyzer.Processing.Collectors;

public sealed class JitCollectorTests
{
    private const long MWorker = 100, MOther = 200;

    [Fact]
    public void Pairs_on_two_threads_interleaved_are_matched_by_thread()
    {
        var jit = new JitCollector();
        Assert.False(jit.Seen);
        var run = Run(10, 20);
        var worker = Thread(Worker);
        var background = Thread(Other);   // tier-1 compilation: RunOf says not the run's
        jit.Start(Worker, MWorker, 11, inRun: true);
        jit.Start(Other, MOther, 11.5, inRun: false);
        jit.Loaded(Other, MOther, 12.5, run, background);
        jit.Loaded(Worker, MWorker, 13, run, worker);
        jit.Start(Other, MOther, 13.25, inRun: false);
        jit.Start(Worker, MWorker, 14, inRun: true);
        jit.Loaded(Worker, MWorker, 14.5, run, worker);
        jit.Loaded(Other, MOther, 16.25, run, background);

        Assert.True(jit.Seen);
        Assert.Equal(2, run.Counters.Freeze().JitMethods);
        Assert.Equal(2 + 0.5, run.Counters.Freeze().JitMs, 9);
        Assert.Equal(2, worker.Counters.Freeze().JitMethods);
        Assert.Equal(2.5, worker.Counters.Freeze().JitMs, 9);
        Assert.Equal(2, background.Counters.Freeze().JitMethods);
        Assert.Equal(1 + 3, background.Counters.Freeze().JitMs, 9);
    }

    [Fact]
    public void A_method_load_without_its_start_counts_nothing_and_a_start_before_the_window_is_not_the_runs()
    {
        var jit = new JitCollector();
        var run = Run(10, 20);
        var thread = Thread();
        jit.Loaded(Worker, MWorker, 10.5, run, thread);     // precompiled code, or jitting began before the trace
        jit.Start(Worker, MWorker, 9.5, inRun: true);       // the marker's wait opened the run; RunBegin moved its start to 10
        jit.Loaded(Worker, MWorker, 10.5, run, thread);
        jit.Start(Worker, MWorker, 19.5, inRun: true);
        run.Closed = true;
        jit.Loaded(Worker, MWorker, 21, run, thread);       // finished after RunEnd, before RunStop: the run's

        Assert.Equal(1, run.Counters.Freeze().JitMethods);
        Assert.Equal(1.5, run.Counters.Freeze().JitMs, 9);
        Assert.Equal(2, thread.Counters.Freeze().JitMethods);
        Assert.Equal(2.5, thread.Counters.Freeze().JitMs, 9);
    }

    [Fact]
    public void A_load_of_another_method_leaves_the_compilation_open_and_the_span_is_returned()
    {
        var jit = new JitCollector();
        var run = Run(10, 20);
        var thread = Thread();
        jit.Start(Worker, MWorker, 11, inRun: true);
        Assert.Null(jit.Loaded(Worker, 999, 11.5, run, thread));   // a precompiled method restored meanwhile
        Assert.Equal(new Interval(11, 13), jit.Loaded(Worker, MWorker, 13, run, thread));
        Assert.Null(jit.Loaded(Worker, MWorker, 14, run, thread)); // closed already

        Assert.Equal(1, run.Counters.Freeze().JitMethods);
        Assert.Equal(2, run.Counters.Freeze().JitMs, 9);
    }
}
