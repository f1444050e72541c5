using EtwSerializerProfiler.Analyzer.Samples;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// The spans in which a thread was inside the JIT, the type loader or an exception's dispatch, on every thread of the process: what a CPU
/// sample in the stripped native runtime was doing (SampleCharger's explanations, docs/analyzer.md "Native runtime").
/// </summary>
internal sealed class RuntimeWorkStage : IPassStage
{
    /// <summary>The spans so far; JIT spans come from <see cref="JitStage"/>'s pairs, so the events are paired in one place.</summary>
    public RuntimeWork.Builder Work { get; } = new();

    /// <summary>Type load events were in the trace (the profile enables TypeDiagnostic): type loading can be told apart.</summary>
    public bool SawTypeLoads { get; private set; }

    public void Subscribe(TraceEventDispatcher source, IPass pass)
    {
        source.Clr.TypeLoadStart += e =>
        {
            SawTypeLoads = true;
            if (pass.InProcess(e)) Work.Start(e.ThreadID, RuntimeWorkKind.TypeLoad, e.TypeLoadStartID, e.TimeStampRelativeMSec);
        };
        source.Clr.TypeLoadStop += e =>
        {
            if (pass.InProcess(e)) Work.Stop(e.ThreadID, RuntimeWorkKind.TypeLoad, e.TypeLoadStartID, e.TimeStampRelativeMSec);
        };
        // An exception's dispatch: its throw to its end. A throw inside a dispatch (a finally, a filter, a catch)
        // joins the open span, and the first end closes it.
        source.Clr.ExceptionStart += e =>
        {
            if (pass.InProcess(e)) Work.Open(e.ThreadID, RuntimeWorkKind.ExceptionDispatch, e.TimeStampRelativeMSec);
        };
        source.Clr.ExceptionStop += e =>
        {
            if (pass.InProcess(e)) Work.Close(e.ThreadID, RuntimeWorkKind.ExceptionDispatch, e.TimeStampRelativeMSec);
        };
    }
}
