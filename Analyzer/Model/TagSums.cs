namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>Sums over a stack tag table, one rule for every table the model has (a run's, a thread's, a sampler's).</summary>
internal static class TagSums
{
    /// <summary>Time in the tag and its children: "Reflection" covers "Reflection\Activator", not "ReflectionEmit".</summary>
    public static double Under(IReadOnlyDictionary<string, double> tags, string prefix)
    {
        var sum = 0.0;
        foreach (var (tag, ms) in tags)
            if (tag.StartsWith(prefix, StringComparison.Ordinal) && (tag.Length == prefix.Length || tag[prefix.Length] == '\\')) sum += ms;
        return sum;
    }
}

/// <summary>The shared empty table of a model object nothing was charged to.</summary>
internal static class Empty<TKey> where TKey : notnull
{
    public static readonly IReadOnlyDictionary<TKey, double> Map = new Dictionary<TKey, double>();
}
