namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>A GC pause (runtime suspended for a GC) in trace milliseconds.</summary>
public readonly record struct PauseWindow(double StartMs, double EndMs)
{
    public double Overlap(double from, double to) => Math.Max(0, Math.Min(EndMs, to) - Math.Max(StartMs, from));
}
