using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder.Profiles;

namespace EtwSerializerProfiler.Recorder.Kernel;

/// <summary>One perf_events event of the kernel session: the perf spec and what it stands for in ETW terms.</summary>
public sealed record PerfEvent(string Name, string Spec, bool Stacks, string Describes);

/// <summary>
/// The Linux rendering of a profile's kernel part, the same data the ETW kernel session is built from: Profile is
/// cpu-clock sampling, ContextSwitch is sched_switch, Dispatcher (ReadyThread) is sched_waking; the stack lists say
/// which of them carry call stacks (perfStacks, where the profile has one, says it for perf alone). Process, Thread
/// and ImageLoad have no event of their own: perf always records comm, task and mmap records, which is what they
/// give ETW.
/// </summary>
public static class PerfEventPlan
{
    /// <summary>The profile's interval as a fixed cpu-clock period (<see cref="PerfRecording.PeriodNs"/> says why not -F).</summary>
    public static long PeriodNs(TraceProfile profile) => PerfRecording.PeriodNs(profile.CpuSamplingMs);

    public static IReadOnlyList<PerfEvent> For(TraceProfile profile)
    {
        var kernel = profile.Kernel;
        if (kernel is null) return [];
        bool Has(List<string> list, string name) => list.Any(k => k.Equals(name, StringComparison.OrdinalIgnoreCase));
        var stackList = kernel.PerfStacks ?? kernel.Stacks;
        var events = new List<PerfEvent>();
        if (Has(kernel.Keywords, "Profile") && profile.CpuSamplingMs > 0)
        {
            var stacks = Has(stackList, "Profile");
            events.Add(new(PerfRecording.CpuClock, PerfRecording.CpuClockSpec(PeriodNs(profile), stacks), stacks,
                $"CPU samples every {PeriodNs(profile) / 1e6:F3} ms of on-CPU time{(stacks ? ", with call stacks" : "")}"));
        }
        if (Has(kernel.Keywords, "ContextSwitch"))
        {
            var stacks = Has(stackList, "ContextSwitch");
            events.Add(new(PerfRecording.SchedSwitch, PerfRecording.TracepointSpec(PerfRecording.SchedSwitch, stacks), stacks,
                $"context switches{(stacks ? " with the switched-out thread's stack" : "")}"));
        }
        if (Has(kernel.Keywords, "Dispatcher"))
        {
            var stacks = Has(stackList, "ReadyThread");
            // sched_waking fires in the waker's context; sched_wakeup fires on the target CPU and, recording one
            // process, misses most cross-thread wake-ups.
            events.Add(new(PerfRecording.SchedWaking, PerfRecording.TracepointSpec(PerfRecording.SchedWaking, stacks), stacks,
                $"wake-ups (ready thread){(stacks ? " with the waker's stack" : "")}"));
        }
        return events;
    }
}
