using EtwSerializerProfiler.Benchmark.Runs;

namespace EtwSerializerProfiler.Tests.Benchmark;

public sealed class InProcessCountersTests
{
    [Fact]
    public void A_gen2_collection_counts_once_as_gen2_not_three_times()
    {
        var before = InProcessCounters.Take(allThreads: false);
        GC.Collect(2, GCCollectionMode.Forced, blocking: true);
        GC.Collect(0, GCCollectionMode.Forced, blocking: true);
        var after = InProcessCounters.Take(allThreads: false);
        var (gcs, pause, _, _, _) = InProcessCounters.Delta(before, after);
        // Other tests may collect concurrently; at least our two, classified by condemned generation.
        Assert.True(gcs.Gen2 >= 1, $"gen2 {gcs.Gen2}");
        Assert.True(gcs.Gen0 + gcs.Gen1 >= 1, $"gen0 {gcs.Gen0} gen1 {gcs.Gen1}"); // the GC may escalate a gen0 request
        Assert.True(pause > 0);
    }

    [Fact]
    public void Allocated_bytes_of_the_current_thread_cover_what_it_allocated()
    {
        var before = InProcessCounters.Take(allThreads: false);
        var keep = new byte[1_000_000];
        var after = InProcessCounters.Take(allThreads: false);
        GC.KeepAlive(keep);
        var (_, _, allocated, _, _) = InProcessCounters.Delta(before, after);
        Assert.InRange(allocated, 1_000_000, 1_100_000);
    }

    [Fact]
    public void Thread_cpu_time_advances_with_work_and_not_with_sleep()
    {
        var t0 = InProcessCounters.Take(allThreads: false);
        Thread.Sleep(100);
        var t1 = InProcessCounters.Take(allThreads: false);
        Assert.True(InProcessCounters.Delta(t0, t1).CpuMs < 50, "sleeping should not consume thread CPU time");
        // Spin until this thread's clock shows 30 ms of CPU; on a loaded machine that takes longer, never forever.
        var deadline = DateTime.UtcNow.AddSeconds(10);
        var x = 0L;
        while (InProcessCounters.Delta(t1, InProcessCounters.Take(allThreads: false)).CpuMs < 30 && DateTime.UtcNow < deadline) x++;
        GC.KeepAlive(x);
        Assert.True(DateTime.UtcNow < deadline, "the thread CPU clock did not advance while spinning");
    }

    [Fact]
    public void Exceptions_count_each_first_chance_exception_thrown_between_two_readings()
    {
        var before = InProcessCounters.Take(allThreads: false);
        for (var i = 0; i < 7; i++)
        {
            try { throw new FormatException(); }
            catch (FormatException) { } // thrown only to be counted
        }
        var after = InProcessCounters.Take(allThreads: false);
        // Other tests may throw in parallel: at least the 7 thrown here, and nothing lost.
        Assert.True(InProcessCounters.Delta(before, after).Exceptions >= 7);
    }
}
