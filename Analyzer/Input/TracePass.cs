using EtwSerializerProfiler.Analyzer.Model;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Input;

/// <summary>
/// Runs a pass over a converted trace, keeping what was read when the reader gives up: an .etlx converted from a
/// damaged trace can end in the middle of an event, and the runs before that point are still valid (runs left open
/// are removed by the pass's own end). A fault of our own handlers is not the trace's and is not caught.
/// </summary>
internal static class TracePass
{
    public static void ProcessReadable(TraceEventDispatcher source, AnalysisDraft analysis)
    {
        try
        {
            source.Process();
        }
        catch (Exception ex) when (ReaderFault.IsFrom(ex, ReaderFault.TraceEvent))
        {
            analysis.Trace = analysis.Trace with { Truncated = true };
            var warning = $"reading the trace stopped early ({ReaderFault.Describe(ex)}): results cover the events before that point";
            if (!analysis.Warnings.Contains(warning)) analysis.WarningList.Add(warning);
        }
    }
}
