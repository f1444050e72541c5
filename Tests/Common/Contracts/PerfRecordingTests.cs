using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Kernel;
using EtwSerializerProfiler.Recorder.Profiles;

// Not Tests.Common: that namespace would hide EtwSerializerProfiler.Common from the tests that write Common.ExitCodes.
namespace EtwSerializerProfiler.Tests.Contracts;

/// <summary>The kernel session's contract: the recorder's perf events and the analyzer's fallback period agree.</summary>
public sealed class PerfRecordingTests
{
    [Fact]
    public void The_default_period_is_the_default_profiles_interval_plus_the_offset()
    {
        Assert.Equal(PerfRecording.DefaultSamplingMs, ProfileCatalog.Get("default").CpuSamplingMs);
        Assert.Equal(1_001_001, PerfRecording.PeriodNs(PerfRecording.DefaultSamplingMs));
        Assert.Equal(1.001001, PerfRecording.DefaultPeriodMs); // the figure analyzed folders without a period assume
        Assert.Equal(PerfRecording.PeriodNs(PerfRecording.DefaultSamplingMs), PerfEventPlan.PeriodNs(ProfileCatalog.Get("default")));
    }

    [Fact]
    public void The_default_profiles_events_are_the_contracts()
    {
        var events = PerfEventPlan.For(ProfileCatalog.Get("default"));
        Assert.Equal([PerfRecording.CpuClock, PerfRecording.SchedSwitch, PerfRecording.SchedWaking], events.Select(e => e.Name));
        Assert.Equal("cpu-clock/period=1001001,call-graph=fp/", events[0].Spec);
        Assert.Equal("sched:sched_switch/call-graph=no/", events[1].Spec);
        Assert.Equal("sched:sched_waking/call-graph=no/", events[2].Spec);
    }

    [Fact]
    public void Perf_script_is_asked_for_the_fields_the_reader_parses()
    {
        var args = PerfRecording.ScriptArguments("k.data");
        Assert.Equal(["script", "-i", "k.data"], args.Take(3));
        Assert.Equal(["-F", "comm,pid,tid,time,event,trace,ip,sym,dso"], args.TakeLast(2));
        Assert.Contains("--ns", args);
        Assert.Contains("--show-switch-events", args);
    }
}
