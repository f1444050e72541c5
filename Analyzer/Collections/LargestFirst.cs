namespace EtwSerializerProfiler.Analyzer.Collections;

/// <summary>
/// Items by a weight, largest first, ties in their order: what LINQ's OrderByDescending gives. Written out because
/// LINQ's sort over a struct or enum key (or tuples of them) runs as tier-0 JIT code in the ReadyToRun build; this
/// sorts indices, whose code is precompiled.
/// </summary>
internal static class LargestFirst
{
    public static List<T> Of<T>(IReadOnlyList<T> items, Func<T, double> weight)
    {
        var weights = new double[items.Count];
        var order = new int[items.Count];
        for (var i = 0; i < order.Length; i++)
        {
            weights[i] = weight(items[i]);
            order[i] = i;
        }
        Array.Sort(order, (a, b) => weights[b].CompareTo(weights[a]) is var byWeight and not 0 ? byWeight : a.CompareTo(b));
        var sorted = new List<T>(order.Length);
        foreach (var i in order) sorted.Add(items[i]);
        return sorted;
    }
}
