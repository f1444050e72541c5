namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>Sums over a stack tag table, one rule for every table the model has (a run's, a thread's, a sampler's).</summary>
internal static class TagSums
{
    /// <summary>Time in the tag and its children: "Reflection" covers "Reflection\Activator", not "ReflectionEmit".</summary>
    public static double Under(IReadOnlyDictionary<string, double> tags, string prefix)
    {
        var sum = 0.0;
        foreach (var (tag, ms) in tags)
            if (IsUnder(tag, prefix)) sum += ms;
        return sum;
    }

    /// <summary>The tag is <paramref name="prefix"/> or one of its children (the rule of <see cref="Under"/>).</summary>
    public static bool IsUnder(string tag, string prefix) =>
        tag.StartsWith(prefix, StringComparison.Ordinal) && (tag.Length == prefix.Length || tag[prefix.Length] == '\\');
}

/// <summary>The shared empty table of a model object nothing was charged to.</summary>
internal static class Empty<TKey> where TKey : notnull
{
    public static readonly IReadOnlyDictionary<TKey, double> Map = new Dictionary<TKey, double>();
}
