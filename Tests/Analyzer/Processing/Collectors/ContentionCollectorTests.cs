using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using EtwSerializerProfiler.Analyzer.StackTags;
using static EtwSerializerProfiler.Tests.Analyzer.Processing.Collectors.CollectorInputs;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Processing.Collectors;

public sealed class ContentionCollectorTests
{
    private static readonly CodeSite Pool = Sites.At("ServiceStack.Text!ServiceStack.Text.Pools.CharPool.GetCachedBuffer", "ServiceStack.Text");
    private static readonly CodeSite Cache = Sites.At("System.Private.DataContractSerialization!DataContract.GetId", "DataContract");

    [Fact]
    public void A_wait_is_the_runs_from_its_start_at_or_after_the_window_and_whole_when_it_ends_after_it()
    {
        var contention = new ContentionCollector();
        var run = Run(10, 20);
        var thread = Thread();
        // The marker's wait opened the run at 9.9, so a wait starting then fell in it for RunOf; RunBegin moved the start to 10.
        contention.Start(Worker, 9.99, Pool, inRun: true);
        contention.Stop(Worker, 10.5, run, thread);                 // just before the window: the thread's only
        contention.Start(Worker, 10, Pool, inRun: true);             // at the window's start
        contention.Stop(Worker, 11, run, thread);
        contention.Start(Worker, 19, Cache, inRun: true);
        run.Closed = true;                                           // RunEnd at 20; RunStop not yet: still the open run
        contention.Stop(Worker, 22, run, thread);                    // ends after the window: charged whole
        contention.Start(Worker, 20.01, Pool, inRun: false);         // after the window: RunOf found none
        contention.Stop(Worker, 20.5, run, thread);

        Assert.True(contention.Seen);
        Assert.Equal(1 + 3, run.Counters.Freeze().ContentionMs, 9);
        Assert.Equal(2, run.Counters.Freeze().Contentions);
        Assert.Equal([(Pool.WithoutTag(), 1.0), (Cache.WithoutTag(), 3.0)], run.Counters.Freeze().ContentionMsBySite.Select(p => (p.Key, p.Value)));
        Assert.Equal([(Worker, new Interval(10, 11)), (Worker, new Interval(19, 22))], contention.RunWaits);
        Assert.Equal(4, thread.Counters.Freeze().Contentions);
        Assert.Equal(0.51 + 1 + 3 + 0.49, thread.Counters.Freeze().ContentionMs, 9);
        Assert.Equal(0.51 + 1 + 0.49, thread.Counters.Freeze().ContentionMsBySite[Pool], 9);
    }

    [Fact]
    public void A_wait_that_started_in_one_run_and_stops_in_the_next_or_after_runstop_is_neither_runs()
    {
        var contention = new ContentionCollector();
        var first = Run(10, 20, run: 1);
        var next = Run(30, 40, run: 2);
        var thread = Thread();
        contention.Start(Worker, 15, Pool, inRun: true);
        contention.Stop(Worker, 31, next, thread);                   // the next run opened meanwhile
        contention.Start(Worker, 35, Pool, inRun: true);
        contention.Stop(Worker, 45, null, thread);                   // RunStop came first: no open run

        Assert.Equal(0, first.Counters.Freeze().Contentions);
        Assert.Equal(0, next.Counters.Freeze().Contentions);
        Assert.Empty(contention.RunWaits);
        Assert.Equal(16 + 10, thread.Counters.Freeze().ContentionMs, 9);
    }

    [Fact]
    public void A_thread_without_a_run_counts_its_waits_and_a_stop_without_its_start_counts_nothing()
    {
        var contention = new ContentionCollector();
        var thread = Thread(Other);
        contention.Stop(Other, 5, null, thread);                     // its start was before the trace
        contention.Start(Other, 6, Pool, inRun: false);
        contention.Start(Worker, 6.5, Cache, inRun: false);           // another thread's wait does not close this one
        contention.Stop(Other, 8, null, thread);
        contention.Stop(Other, 9, null, thread);                     // a second stop: its start is gone
        contention.Start(Other, 10, Pool, inRun: false);
        contention.Stop(Other, 10.5, null, null);                    // ETW: a process not yet known; the pair is consumed

        Assert.Equal(1, thread.Counters.Freeze().Contentions);
        Assert.Equal(2, thread.Counters.Freeze().ContentionMs, 9);
    }

    [Fact]
    public void A_start_whose_stop_was_lost_is_replaced_by_the_next_start_on_its_thread()
    {
        var contention = new ContentionCollector();
        var run = Run(10, 20);
        contention.Start(Worker, 11, Pool, inRun: true);
        contention.Start(Worker, 12, Cache, inRun: false);           // a helper thread's stack outside the measured call, say
        contention.Stop(Worker, 13, run, Thread());
        Assert.Equal(0, run.Counters.Freeze().Contentions);
    }

    [Fact]
    public void The_code_that_wanted_the_lock_is_the_first_resolved_frame_outside_System_Threading()
    {
        StackFrame[] frames =
        [
            new("System.Private.CoreLib.dll", "System.Threading.Monitor.Enter(class System.Object)"),
            new("System.Private.CoreLib.dll", "System.Threading.Lock.EnterAndGetCurrentThreadId()"),
            new("ServiceStack.Text.dll", StackFrame.Unresolved),
            new("ServiceStack.Text.dll", "ServiceStack.Text.Pools.CharPool.GetCachedBuffer(int32)"),
        ];
        Assert.Equal(Pool.Name, CodeSite.At(ContentionCollector.TakerOf(frames)).Name);
        Assert.Equal(CodeSite.UnknownFrame, ContentionCollector.TakerOf(frames[..3]));
    }
}
