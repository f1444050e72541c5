using EtwSerializerProfiler.Analyzer.Samples;

using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>
    /// The spans in which a thread was inside the JIT or the type loader, on every thread of the process: what a CPU
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
        }
    }
}
