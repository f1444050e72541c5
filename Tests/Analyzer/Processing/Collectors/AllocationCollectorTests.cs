using EtwSerializerProfiler.Analyzer.Processing.Collectors;
using static EtwSerializerProfiler.Tests.Analyzer.Processing.Collectors.CollectorInputs;

namespace EtwSerializerProfiler.Tests.Analyzer.Processing.Collectors;

public sealed class AllocationCollectorTests
{
    [Fact]
    public void A_tick_is_charged_to_the_run_and_the_thread_alike_and_one_outside_runs_to_the_thread_only()
    {
        var allocations = new AllocationCollector();
        Assert.False(allocations.Seen);
        var run = Run(10, 20);
        var thread = Thread();

        allocations.Tick(null, thread, 100_000, "System.String");       // before the window: the pass found no run
        allocations.Tick(run, thread, 100_200, "System.String");
        allocations.Tick(run, thread, 100_300, "Order");
        allocations.Tick(run, null, 100_400, "");                        // ETW: a thread of a process not yet known
        allocations.Tick(null, thread, 50_000, null);                    // after the window

        Assert.True(allocations.Seen);
        Assert.Equal(100_200 + 100_300 + 100_400, run.Counters.Freeze().AllocatedBytes);
        Assert.Equal(3, run.Counters.Freeze().AllocationTicks);
        Assert.Equal(100_400, run.Counters.Freeze().AllocatedBytesByType[AllocationCollector.UnknownType]);
        Assert.Equal(100_000 + 100_200 + 100_300 + 50_000, thread.Counters.Freeze().AllocatedBytes);
        Assert.Equal(4, thread.Counters.Freeze().AllocationTicks);
        Assert.Equal(new Dictionary<string, long> { ["System.String"] = 200_200, ["Order"] = 100_300, ["?"] = 50_000 }, thread.Counters.Freeze().AllocatedBytesByType);
        Assert.True(thread.Active);
    }

    [Fact]
    public void A_thread_with_nothing_counted_is_not_active()
    {
        var thread = Thread();
        new AllocationCollector().Tick(Run(0, 1), null, 1000, "X");
        Assert.False(thread.Active);
        Assert.False(thread.Counters.Any);
    }
}
