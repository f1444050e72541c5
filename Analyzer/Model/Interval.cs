namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>A span of trace time in milliseconds: a GC pause, a suspension, a lock wait, a JIT span.</summary>
public readonly record struct Interval(double StartMs, double EndMs)
{
    /// <summary>How much of the span from <paramref name="from"/> to <paramref name="to"/> this interval covers (0 if none).</summary>
    public double Overlap(double from, double to) => Math.Max(0, Math.Min(EndMs, to) - Math.Max(StartMs, from));
}
