using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports;

/// <summary>
/// Per trace: how much of the measured runs' on-CPU time ends in code without a name, and how much of that the
/// trace's own events cannot explain either (docs/analyzer.md, "Native runtime"). Per serializer the same shares are
/// the Unnamed and Unexplained columns.
/// </summary>
internal static class NativeRuntimeNote
{
    public static (double? Unnamed, double? Unexplained) Shares(IEnumerable<RunAnalysis> runs)
    {
        var measured = runs.Where(r => !r.IsWarmup).ToList();
        var cpu = measured.Sum(r => r.CpuMs);
        return cpu > 0 ? (measured.Sum(r => r.UnnamedLeafMs) / cpu, measured.Sum(r => r.UnexplainedLeafMs) / cpu) : (null, null);
    }

    /// <summary>Only for on-CPU sources, whose stacks reach native code; null otherwise.</summary>
    public static string? Line(TraceAnalysis analysis)
    {
        if (!analysis.Trace.OnCpu || Shares(analysis.Runs) is not ({ } unnamed, { } unexplained)) return null;
        var typeLoads = analysis.Trace.TypeLoadEvents ? "type loads" : "type loads not told apart (no TypeDiagnostic events in this trace; esp record's default profile has them)";
        return $"Native runtime: {Fmt.Pct(unnamed)} of the measured runs' on-CPU time ends in code without a name; {Fmt.Pct(unexplained)} stays unexplained after the trace's events "
            + $"(GC pauses, JIT, {typeLoads}, exceptions, stubs; tag Native runtime\\Runtime (libcoreclr, stripped))";
    }
}
