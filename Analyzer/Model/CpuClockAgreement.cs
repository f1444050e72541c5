namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// A trace's CPU column against a truth it did not compute: the thread CPU clock the benchmark read around each run
/// (results.json), over the measured single-thread runs of <see cref="MinRunMs"/> or more. The report prints it under
/// the CPU line (Reports/CpuClockCheck) and the cpu-bias finding warns beyond its threshold, so a biased source says
/// so, and by how much, for this trace (docs/analyzer.md#cpu-against-the-thread-clock).
/// </summary>
/// <param name="Runs">Runs compared.</param>
/// <param name="TraceMs">Their CPU column, summed.</param>
/// <param name="ClockMs">Their thread CPU clock, summed.</param>
/// <param name="Median">Per run, (trace - clock) / clock: the median.</param>
/// <param name="Min">The lowest.</param>
/// <param name="Max">The highest.</param>
internal readonly record struct CpuClockAgreement(int Runs, double TraceMs, double ClockMs, double Median, double Min, double Max)
{
    /// <summary>Runs shorter than this on the clock are left out: a sampled source counts whole periods.</summary>
    public const double MinRunMs = 1.0;

    /// <summary>(trace - clock) / clock over all the runs compared: negative when the column reads low.</summary>
    public double Bias => TraceMs / ClockMs - 1;

    /// <summary>The runs compared: measured, single-thread (a run over several threads carries the process's CPU, read outside the window: not the same quantity), with a thread CPU clock reading of <see cref="MinRunMs"/> or more.</summary>
    public static IEnumerable<RunAnalysis> Compared(IReadOnlyList<RunAnalysis> runs) =>
        runs.Where(r => r.IsMeasured && r.InProcess is { Threads: <= 1, CpuMs: >= MinRunMs });

    /// <summary>The figures over <see cref="Compared"/>; null without any run to compare.</summary>
    public static CpuClockAgreement? Of(IReadOnlyList<RunAnalysis> runs)
    {
        var pairs = Compared(runs).Select(r => (Trace: r.CpuMs, Clock: r.InProcess!.CpuMs)).ToList();
        if (pairs.Count == 0) return null;
        var relative = pairs.Select(p => p.Trace / p.Clock - 1).Order().ToArray();
        var half = relative.Length / 2;
        var median = relative.Length % 2 == 1 ? relative[half] : (relative[half - 1] + relative[half]) / 2;
        return new CpuClockAgreement(pairs.Count, pairs.Sum(p => p.Trace), pairs.Sum(p => p.Clock), median, relative[0], relative[^1]);
    }
}
