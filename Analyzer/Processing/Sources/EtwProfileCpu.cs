using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Samples;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing.Sources;

/// <summary>
/// ETW's kernel profile interrupts (Windows): on-CPU time, one interval per sample, any thread of the benchmark's
/// process. The interval is the one the trace recorded (1 ms when it says none).
/// </summary>
internal sealed class EtwProfileCpu(double periodMs) : PassCpuSource
{
    private readonly List<CpuSample> _samples = [];
    private EventStacks? _stacks;

    public static ICpuSource? Open(TraceOpening trace) => trace.Input.Format == TraceFormat.Etl && trace.Log is { } log
        ? new EtwProfileCpu(log.SampleProfileInterval.TotalMilliseconds > 0 ? log.SampleProfileInterval.TotalMilliseconds : 1.0)
        : null;

    public override CpuSourceKind Kind => CpuSourceKind.EtwProfile;

    public override string BiasReason => CpuSources.OnCpuBiasReason;

    protected override string SamplingSource => "ETW kernel profile interrupts: on-CPU time";

    protected override double? ObservedIntervalMs => SampleCount > 0 ? periodMs : null;

    protected override string NoSamplesWarning => "no kernel CPU samples for the benchmark process (profile without the Profile kernel keyword): CPU and tag columns are empty";

    public override void Subscribe(TraceEventDispatcher source, PassSamples pass)
    {
        _stacks = pass.Stacks;
        source.Kernel.PerfInfoSample += e =>
        {
            if (!pass.Scope.InProcess(e)) return;
            SampleCount++;
            var t = e.TimeStampRelativeMSec;
            _samples.Add(new CpuSample(e.ThreadID, t, pass.Stacks.StackOf(e), InGc: false, t, periodMs));
        };
    }

    /// <summary>Each sample marked when taken in a GC pause (<see cref="EtwSampleSource"/>), now that every pause is known.</summary>
    public override CpuPlan Plan(CpuCharge cpu) => new(EtwSampleSource.Stream(_samples, _stacks!, periodMs, cpu.Pauses));
}
