using EtwSerializerProfiler.Benchmark.Runs;

namespace EtwSerializerProfiler.Tests.Benchmark;

public sealed class WorkerCrewTests
{
    [Fact]
    public void Every_run_uses_every_worker_once_and_the_same_threads_across_runs()
    {
        using var crew = new WorkerCrew(4, "test worker");
        var first = new int[4];
        var second = new int[4];
        crew.Run(i => first[i] = Environment.CurrentManagedThreadId);
        crew.Run(i => second[i] = Environment.CurrentManagedThreadId);
        Assert.Equal(4, first.Distinct().Count());
        Assert.DoesNotContain(Environment.CurrentManagedThreadId, first);
        Assert.Equal(first, second);
    }

    [Fact]
    public void Failures_of_some_workers_are_rethrown_together_and_the_crew_stays_usable()
    {
        using var crew = new WorkerCrew(3, "test worker");
        var ex = Assert.Throws<AggregateException>(() => crew.Run(i => { if (i > 0) throw new InvalidDataException("bad " + i); }));
        Assert.Equal(2, ex.InnerExceptions.Count);
        var ran = 0;
        crew.Run(_ => Interlocked.Increment(ref ran));
        Assert.Equal(3, ran);
    }
}
