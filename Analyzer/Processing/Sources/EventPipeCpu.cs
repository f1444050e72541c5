using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Samples;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing.Sources;

/// <summary>
/// EventPipe's SampleProfiler: managed stacks at safe points, each sample weighing the time since the thread's
/// previous one (<see cref="SampleWeigher"/>), so time in managed code on or off the CPU. Under the kernel session it
/// is charged beside the columns, to show its bias (<see cref="RunDraft.EventPipeCpu"/>).
/// </summary>
internal sealed class EventPipeCpu : PassCpuSource, ICpuSource
{
    private static readonly Guid SampleProfilerGuid = new("3c530d44-97ae-513a-1e6d-783e8f8e03a9");
    private readonly SampleWeigher _weigher = new();
    private readonly List<CpuSample> _samples = [];
    private EventStacks? _stacks;

    public static ICpuSource? Open(TraceOpening trace) => trace.Input.Format == TraceFormat.NetTrace ? new EventPipeCpu() : null;

    public override CpuSourceKind Kind => CpuSourceKind.EventPipe;

    public override string BiasReason => "EventPipe's sampler counts a thread's managed time on or off the CPU (a busy machine adds the time it was preempted); record with the kernel session for on-CPU time";

    protected override string SamplingSource => "EventPipe SampleProfiler: time in managed code per thread (not on-CPU time)";

    protected override double? ObservedIntervalMs => _weigher.ObservedIntervalMs;

    /// <summary>Not given when a kernel session supplies the CPU (its recording leaves EventPipe's sampler out).</summary>
    protected override string NoSamplesWarning => "no CPU samples in this trace (profile without SampleProfiler): CPU and tag columns are empty";

    public override void Subscribe(TraceEventDispatcher source, PassSamples pass)
    {
        _stacks = pass.Stacks;
        // GUIDs, not names: this runs for every event, and a name is a string comparison each time.
        source.AllEvents += e =>
        {
            if (e.ProviderGuid == SampleProfilerGuid && (int)e.ID == 0) OnSample(e);
        };
    }

    private void OnSample(TraceEvent e)
    {
        SampleCount++;
        var now = e.TimeStampRelativeMSec;
        // Every sample moves the thread's clock, managed or not: a sample stands for the time since the thread's previous one.
        var since = _weigher.Previous(e.ThreadID, now);
        if (!IsManagedSample(e)) return;
        _samples.Add(new CpuSample(e.ThreadID, now, _stacks!.StackOf(e), InGc: false, since, _weigher.CapMs));
    }

    private static bool IsManagedSample(TraceEvent e)
    {
        var type = e.PayloadValue(0);
        return type switch
        {
            string s => s == "Managed",
            null => true,
            _ => PayloadFields.Int32Of(type) == 2,
        };
    }

    public override CpuPlan Plan(CpuCharge cpu) => new(new SampleStream(CpuSourceKind.EventPipe, _samples, _stacks!, 0));

    public void Charged(RunDraft run, CpuAccount charged) => run.GcPollLeafSamples = charged.GcPollLeafSamples;

    public bool ShowsBias => true;

    public void WriteBias(SampleCharges sampled, IReadOnlyList<RunDraft> runs)
    {
        foreach (var run in runs)
        {
            var a = sampled.Of(run);
            run.EventPipeCpu = new SampledCpu(a?.CpuMs ?? 0, a?.Samples ?? 0, new Dictionary<string, double>(a?.Tags ?? [], StringComparer.Ordinal));
            run.GcPollLeafSamples = a?.GcPollLeafSamples ?? 0;
        }
    }
}
