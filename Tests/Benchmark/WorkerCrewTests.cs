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

    [Fact]
    public void The_crews_cpu_clock_read_from_outside_is_the_sum_of_each_workers_own_clock()
    {
        if (!OperatingSystem.IsLinux()) return; // only Linux gives another thread's CPU clock (null elsewhere)
        using var crew = new WorkerCrew(3, "test worker");
        Assert.Equal(3, crew.OsThreadIds.Distinct().Count());
        Assert.DoesNotContain(EtwSerializerProfiler.RunMarkers.NativeThreadInfo.CurrentOsThreadId(), crew.OsThreadIds);
        var own = new double[3];
        var busyMs = 0;
        void Work(int i)
        {
            var start = EtwSerializerProfiler.RunMarkers.NativeThreadInfo.CurrentThreadCpuTime();
            var sw = System.Diagnostics.Stopwatch.StartNew();
            var x = 0.0;
            while (sw.ElapsedMilliseconds < busyMs * (i + 1)) x += Math.Sqrt(x + i); // 30, 60 and 90 ms of busy work
            GC.KeepAlive(x);
            own[i] = (EtwSerializerProfiler.RunMarkers.NativeThreadInfo.CurrentThreadCpuTime() - start).TotalMilliseconds;
        }
        // Once without work first: the delegate's JIT, on a worker's clock before its own first read, is not a wake-up.
        crew.Run(Work);
        busyMs = 30;
        var before = crew.CpuTime()!.Value;
        crew.Run(Work);
        var outside = (crew.CpuTime()!.Value - before).TotalMilliseconds;
        // The outside reads bracket each worker's own, plus its wake-up and its return to the wait: microseconds each.
        Assert.True(outside >= own.Sum() && outside <= own.Sum() + 3, $"outside {outside:F3} ms, the workers' own {string.Join(" + ", own.Select(o => o.ToString("F3")))} ms");
        Assert.True(own.Sum() > 20, $"the workers ran {own.Sum():F1} ms");
    }
}
