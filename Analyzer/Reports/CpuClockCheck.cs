using System.Globalization;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports;

/// <summary>The line under the CPU line: the CPU column against the benchmark's thread CPU clock (<see cref="CpuClockAgreement"/>).</summary>
internal static class CpuClockCheck
{
    /// <returns>The note; null without runs to compare.</returns>
    public static string? Line(IReadOnlyList<RunAnalysis> runs)
    {
        if (CpuClockAgreement.Of(runs) is not { } a) return null;
        return $"CPU against the benchmark's thread CPU clock (in-process), {a.Runs:N0} measured runs of {CpuClockAgreement.MinRunMs:0} ms or more: "
            + $"{Fmt.SignedPercent(a.Bias)} in all ({Fmt.Ms(a.TraceMs)} ms against {Fmt.Ms(a.ClockMs)}), per run median {Fmt.SignedPercent(a.Median)}, range {Fmt.SignedPercent(a.Min)} to {Fmt.SignedPercent(a.Max)}";
    }
}
