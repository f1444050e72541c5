using EtwSerializerProfiler.Analyzer.Samples;

using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>
    /// The spans in which a thread was inside the JIT, the type loader or an exception's dispatch, on every thread of the process: what a CPU
    /// sample in the stripped native runtime was doing (SampleCharger's explanations, docs/analyzer.md "Native runtime").
    /// </summary>
    private sealed partial class PassState
    {
        private readonly RuntimeWork.Builder _runtimeWork = new();

        /// <summary>Type load events were in the trace (the profile enables TypeDiagnostic): type loading can be told apart.</summary>
        private bool _sawTypeLoads;

        private void SubscribeRuntimeWork(TraceEventDispatcher source)
        {
            // JIT spans come from JitCollector's pairs (SubscribeCollectors): the events are paired in one place.
            source.Clr.TypeLoadStart += e =>
            {
                _sawTypeLoads = true;
                if (InProcess(e)) _runtimeWork.Start(e.ThreadID, RuntimeWorkKind.TypeLoad, e.TypeLoadStartID, e.TimeStampRelativeMSec);
            };
            source.Clr.TypeLoadStop += e =>
            {
                if (InProcess(e)) _runtimeWork.Stop(e.ThreadID, RuntimeWorkKind.TypeLoad, e.TypeLoadStartID, e.TimeStampRelativeMSec);
            };
            // An exception's dispatch: its throw to its end. A throw inside a dispatch (a finally, a filter, a catch)
            // joins the open span, and the first end closes it.
            source.Clr.ExceptionStart += e =>
            {
                if (InProcess(e)) _runtimeWork.Open(e.ThreadID, RuntimeWorkKind.ExceptionDispatch, e.TimeStampRelativeMSec);
            };
            source.Clr.ExceptionStop += e =>
            {
                if (InProcess(e)) _runtimeWork.Close(e.ThreadID, RuntimeWorkKind.ExceptionDispatch, e.TimeStampRelativeMSec);
            };
        }
    }
}
