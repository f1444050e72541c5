namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>A span of trace time in milliseconds.</summary>
internal readonly record struct Interval(double StartMs, double EndMs)
{
    public double Overlap(double from, double to) => Math.Max(0, Math.Min(EndMs, to) - Math.Max(StartMs, from));
}
