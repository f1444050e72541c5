using System.Globalization;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports;

/// <summary>
/// The trace's CPU column against a truth it did not compute: the thread CPU clock the benchmark read around each
/// run (results.json). Printed under the CPU line of every analysis that has both, so a biased source says so, and by
/// how much, for this trace (docs/analyzer.md#accuracy-against-independent-truth).
/// </summary>
internal static class CpuClockCheck
{
    /// <summary>Runs shorter than this on the clock are left out: a sampled source counts whole periods.</summary>
    public const double MinRunMs = 1.0;

    /// <summary>Beyond this, in either direction over all runs, the line becomes a warning.</summary>
    public const double BiasedFraction = 0.03;

    /// <summary>Runs compared, the sums, and per run the median and range of (trace - clock) / clock.</summary>
    public readonly record struct Figures(int Runs, double TraceMs, double ClockMs, double Median, double Min, double Max)
    {
        public double Bias => TraceMs / ClockMs - 1;
    }

    /// <summary>The measured single-thread runs with a thread CPU clock reading; null without any.</summary>
    public static Figures? Measure(IReadOnlyList<RunAnalysis> runs)
    {
        // A run over several threads carries the process's CPU, read outside the window: not the same quantity.
        var pairs = runs.Where(r => r.IsMeasured && r.InProcess is { Threads: <= 1, CpuMs: >= MinRunMs })
            .Select(r => (Trace: r.CpuMs, Clock: r.InProcess!.CpuMs)).ToList();
        if (pairs.Count == 0) return null;
        var relative = pairs.Select(p => p.Trace / p.Clock - 1).Order().ToArray();
        var median = relative.Length % 2 == 1 ? relative[relative.Length / 2] : (relative[relative.Length / 2 - 1] + relative[relative.Length / 2]) / 2;
        return new Figures(pairs.Count, pairs.Sum(p => p.Trace), pairs.Sum(p => p.Clock), median, relative[0], relative[^1]);
    }

    /// <returns>The note, and whether it is a warning (the sums differ by more than <see cref="BiasedFraction"/>); null without runs to compare.</returns>
    public static (string Line, bool Biased)? Line(IReadOnlyList<RunAnalysis> runs)
    {
        if (Measure(runs) is not { } f) return null;
        var line = $"CPU against the benchmark's thread CPU clock (in-process), {f.Runs:N0} measured runs of {MinRunMs:0} ms or more: "
            + $"{Signed(f.Bias)} in all ({Fmt.Ms(f.TraceMs)} ms against {Fmt.Ms(f.ClockMs)}), per run median {Signed(f.Median)}, range {Signed(f.Min)} to {Signed(f.Max)}";
        var biased = Math.Abs(f.Bias) > BiasedFraction;
        return biased ? ($"{line}: the CPU columns read {Math.Abs(f.Bias) * 100:F1}% {(f.Bias < 0 ? "low" : "high")} in this trace", true) : (line, false);
    }

    private static string Signed(double fraction) => (fraction * 100).ToString("+0.0;-0.0;0.0", CultureInfo.InvariantCulture) + "%";
}
