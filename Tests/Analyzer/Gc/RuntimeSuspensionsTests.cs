using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Model;
using Xunit;

namespace EtwSerializerProfiler.Tests.Analyzer.Gc;

/// <summary>Runtime suspensions from hand-made suspend/restart sequences, each with its exact intervals.</summary>
public sealed class RuntimeSuspensionsTests
{
    private const int GcThread = 5, Sampler = 9;

    [Fact]
    public void A_GC_and_the_samplers_suspensions_interleave_per_thread_and_only_the_GC_is_a_pause()
    {
        var s = new RuntimeSuspensions();
        s.SuspendStart(GcThread, 10, forGc: true);
        s.SuspendStart(Sampler, 10.5, forGc: false);   // the sampler, on its own thread, in the middle of the GC's events
        s.Suspended(GcThread, 11);
        Assert.Null(s.RestartStop(Sampler, 10.75));
        s.RestartStart(GcThread, 14);
        var pause = s.RestartStop(GcThread, 15);

        Assert.Equal([new Interval(10, 15)], s.GcPauses);
        Assert.Equal(new GcPause(new(10, 15), Suspending: new(10, 11), Restarting: new(14, 15)), pause);
        Assert.Equal([new Interval(10.5, 10.75)], s.Other);
    }

    [Fact]
    public void A_suspension_with_another_reason_is_a_GC_pause_when_a_GC_starts_inside_it()
    {
        var s = new RuntimeSuspensions();
        s.SuspendStart(GcThread, 20, forGc: false);
        s.GcStarted(GcThread);
        var pause = s.RestartStop(GcThread, 22);    // no SuspendEEStop, no RestartEEStart: no parts

        Assert.Equal([new Interval(20, 22)], s.GcPauses);
        Assert.Equal(new GcPause(new(20, 22), null, null), pause);
        Assert.Empty(s.Other);
    }

    [Fact]
    public void Events_without_their_start_are_ignored_and_a_new_start_replaces_a_lost_one()
    {
        var s = new RuntimeSuspensions();
        s.Suspended(GcThread, 1);
        s.GcStarted(GcThread);
        s.RestartStart(GcThread, 2);
        Assert.Null(s.RestartStop(GcThread, 3));       // its start was before the trace
        s.SuspendStart(GcThread, 4, forGc: true);
        s.SuspendStart(GcThread, 6, forGc: false);  // the first one's restart was lost
        s.RestartStop(GcThread, 7);

        Assert.Empty(s.GcPauses);
        Assert.Equal([new Interval(6, 7)], s.Other);
    }
}
