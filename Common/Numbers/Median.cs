namespace EtwSerializerProfiler.Common;

/// <summary>The middle of a sample, where a few outliers must not move it (tick intervals, run times).</summary>
public static class Median
{
    /// <summary>The value at index n/2 once sorted: of an even count the higher middle, always one of the values.</summary>
    public static double Upper(IReadOnlyCollection<double> values) => values.OrderBy(v => v).ElementAt(values.Count / 2);
}
