using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Tests.Contracts;

/// <summary>Work on two cores: the side task runs while the caller's work does, and failures surface as documented.</summary>
public sealed class BesideTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    [Fact]
    public void The_side_task_runs_while_the_main_work_does_and_is_joined_after_it()
    {
        // The side waits for the main work and the main work for the side: only side by side do both finish.
        using var mainStarted = new ManualResetEventSlim();
        using var sideStarted = new ManualResetEventSlim();
        var sideDone = false;
        var side = Task.Run(() => { sideStarted.Set(); Assert.True(mainStarted.Wait(Patience)); Thread.Sleep(50); sideDone = true; });
        Beside.Join(side, () => { mainStarted.Set(); Assert.True(sideStarted.Wait(Patience)); });
        Assert.True(sideDone);
    }

    [Fact]
    public void The_main_works_failure_is_the_one_reported_and_the_sides_is_observed()
    {
        var side = Task.Run(() => throw new IOException("side"));
        var thrown = Assert.Throws<InvalidOperationException>(() => Beside.Join(side, () => throw new InvalidOperationException("main")));
        Assert.Equal("main", thrown.Message);
        Assert.True(((IAsyncResult)side).AsyncWaitHandle.WaitOne(Patience));
        Assert.IsType<IOException>(side.Exception!.InnerException); // read by the continuation too: never unobserved
    }

    [Fact]
    public void The_sides_failure_surfaces_after_the_main_work_succeeds_and_no_side_is_no_wait()
    {
        var ran = false;
        var thrown = Assert.Throws<IOException>(() => Beside.Join(Task.Run(() => throw new IOException("side")), () => ran = true));
        Assert.True(ran);
        Assert.Equal("side", thrown.Message);
        Beside.Join(null, () => ran = false);
        Assert.False(ran);
        Assert.Equal(42, Beside.Join(Task.Delay(10), () => 42));
    }
}
