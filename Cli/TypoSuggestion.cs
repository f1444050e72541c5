namespace EtwSerializerProfiler.Cli;

/// <summary>
/// The name a typo was meant to be: the closest by edit distance, at most 3 edits away, ties going to the longest
/// common prefix. The same rule as System.CommandLine's ParseErrorAction, which cannot be used here (see UsageErrors).
/// </summary>
public static class TypoSuggestion
{
    public const int MaxDistance = 3;

    public static string? Closest(string typed, IEnumerable<string> candidates) => candidates
        .Distinct(StringComparer.Ordinal)
        .Select(c => (Name: c, Distance: Distance(typed, c), Prefix: CommonPrefix(typed, c)))
        .Where(c => c.Distance <= MaxDistance && c.Distance < Math.Max(typed.Length, c.Name.Length))
        .OrderBy(c => c.Distance).ThenByDescending(c => c.Prefix).ThenBy(c => c.Name, StringComparer.Ordinal)
        .Select(c => c.Name)
        .FirstOrDefault();

    /// <summary>Levenshtein distance, case-insensitive (esp's options always were).</summary>
    public static int Distance(string a, string b)
    {
        a = a.ToLowerInvariant();
        b = b.ToLowerInvariant();
        var previous = Enumerable.Range(0, b.Length + 1).ToArray();
        var current = new int[b.Length + 1];
        for (var i = 1; i <= a.Length; i++)
        {
            current[0] = i;
            for (var j = 1; j <= b.Length; j++)
                current[j] = Math.Min(Math.Min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1));
            (previous, current) = (current, previous);
        }
        return previous[b.Length];
    }

    private static int CommonPrefix(string a, string b)
    {
        var i = 0;
        while (i < a.Length && i < b.Length && char.ToLowerInvariant(a[i]) == char.ToLowerInvariant(b[i])) i++;
        return i;
    }
}
