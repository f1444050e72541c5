namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// A trace's CPU column against a truth it did not compute: the thread CPU clock the benchmark read around each run
/// (results.json; every thread's for a --threads run), over the measured runs of <see cref="MinRunMs"/> or more. The report prints it under
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

    /// <summary>
    /// Whether the host's steal while recording (<see cref="TraceInfo.HostStealMs"/>) can explain the bias: the column
    /// reads high by no more than it. Context switches count stolen time where it hit a run; the thread clock does not.
    /// </summary>
    public bool ExplainedBySteal(double? stealMs) => stealMs > 0 && TraceMs > ClockMs && TraceMs - ClockMs <= stealMs;

    /// <summary>
    /// The runs compared: measured, with a thread CPU clock reading of <see cref="MinRunMs"/> or more
    /// (<see cref="ThreadClockMs"/>). A --threads run is compared only when the trace knows its crew (RunThread events) and
    /// the benchmark read the crew's clocks: its CpuMs is the process's, not the same quantity.
    /// </summary>
    public static IEnumerable<RunAnalysis> Compared(IReadOnlyList<RunAnalysis> runs) =>
        runs.Where(r => r.IsMeasured && r.CpuKnown && ThreadClockMs(r) >= MinRunMs);

    /// <summary>
    /// The run's thread CPU clock: the worker's (RunResult.CpuMs) for one thread; for a --threads run whose crew the
    /// trace names, every thread's summed (RunResult.ThreadsCpuMs); null otherwise.
    /// </summary>
    public static double? ThreadClockMs(RunAnalysis run) => run.InProcess switch
    {
        null => null,
        { Threads: <= 1 } one => one.CpuMs,
        { ThreadsCpuMs: { } all } when run.CrewThreadIds.Count > 0 => all,
        _ => null,
    };

    /// <summary>The figures over <see cref="Compared"/>; null without any run to compare.</summary>
    public static CpuClockAgreement? Of(IReadOnlyList<RunAnalysis> runs)
    {
        // Loops, not LINQ over (trace, clock) tuples: that ran as tier-0 JIT code in the ReadyToRun build.
        var relative = new List<double>();
        double traceMs = 0, clockMs = 0;
        foreach (var r in Compared(runs))
        {
            var clock = ThreadClockMs(r)!.Value;
            traceMs += r.CpuMs;
            clockMs += clock;
            relative.Add(r.CpuMs / clock - 1);
        }
        if (relative.Count == 0) return null;
        relative.Sort();
        var half = relative.Count / 2;
        var median = relative.Count % 2 == 1 ? relative[half] : (relative[half - 1] + relative[half]) / 2;
        return new CpuClockAgreement(relative.Count, traceMs, clockMs, median, relative[0], relative[^1]);
    }
}
