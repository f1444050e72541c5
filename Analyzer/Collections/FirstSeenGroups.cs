namespace EtwSerializerProfiler.Analyzer.Collections;

/// <summary>
/// Items grouped by a string key, groups and items first seen first: what LINQ's GroupBy gives. Keyed by a string
/// because a table keyed by a tuple ran as tier-0 JIT code in the ReadyToRun build.
/// </summary>
internal static class FirstSeenGroups
{
    public static List<List<T>> Of<T>(IEnumerable<T> items, Func<T, string> key)
    {
        var groups = new List<List<T>>();
        var byKey = new Dictionary<string, List<T>>(StringComparer.Ordinal);
        foreach (var item in items)
        {
            var k = key(item);
            if (!byKey.TryGetValue(k, out var same)) groups.Add(byKey[k] = same = []);
            same.Add(item);
        }
        return groups;
    }
}
