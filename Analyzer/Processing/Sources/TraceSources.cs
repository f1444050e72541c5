using EtwSerializerProfiler.Analyzer.Input;

namespace EtwSerializerProfiler.Analyzer.Processing.Sources;

/// <summary>
/// What differs between an EventPipe trace and an ETW trace, one strategy per concern, chosen once when the trace is
/// opened: whose events count (<see cref="IProcessScope"/>) and where the marker's waits come from
/// (<see cref="IMarkerWaits"/>). The pass asks them and never the trace's format.
/// </summary>
internal sealed record TraceSources(IProcessScope Scope, IMarkerWaits Waits)
{
    public static TraceSources Open(TraceInput input) => input.Format == TraceFormat.Etl
        ? new(new MachineWide(), new ContextSwitchWaits())
        : new(new OneProcess(), new WaitHandleWaits());
}
