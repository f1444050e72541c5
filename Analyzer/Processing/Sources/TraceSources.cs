using EtwSerializerProfiler.Analyzer.Input;

namespace EtwSerializerProfiler.Analyzer.Processing.Sources;

/// <summary>
/// What differs between an EventPipe trace and an ETW trace, one strategy per concern, chosen once when the trace is
/// opened: whose events count (<see cref="IProcessScope"/>), where the marker's waits come from
/// (<see cref="IMarkerWaits"/>) and where CPU samples can come from (<see cref="ICpuSource"/>, the registered ones that
/// apply, in order). The pass asks them and never the trace's format.
/// </summary>
internal sealed record TraceSources(IProcessScope Scope, IMarkerWaits Waits, IReadOnlyList<ICpuSource> Cpu)
{
    public static TraceSources Open(TraceOpening trace, IReadOnlyList<CpuSourceFactory> cpu)
    {
        var sources = CpuSources.Open(cpu, trace);
        return trace.Input.Format == TraceFormat.Etl
            ? new(new MachineWide(), new ContextSwitchWaits(), sources)
            : new(new OneProcess(), new WaitHandleWaits(), sources);
    }
}
