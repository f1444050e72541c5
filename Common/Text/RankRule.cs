namespace EtwSerializerProfiler.Common;

/// <summary>
/// The Rank column, the same rule in the benchmark's table and the analyzer's: rows of one operation and N, sorted by
/// mean, are numbered; a row whose min-max range overlaps the previous or the next row's gets "~" (some measured run
/// of one was as fast as some run of the other, so their order could flip on the next launch); a row with a single
/// measured run has no spread to judge and gets "?"; a row alone gets <see cref="Alone"/>. A row whose round trip
/// failed (the serializer did not give back the data) is not ranked at all: it gets <see cref="Unranked"/>, no number,
/// and is nobody's neighbour, since being fast at producing wrong output is no result.
/// </summary>
public static class RankRule
{
    /// <summary>The Rank of a row alone at its operation and N: ranked against nothing.</summary>
    public const string Alone = "-";

    /// <summary>The Rank of a row whose round trip failed.</summary>
    public const string Unranked = "failed";

    /// <summary>Whether a round-trip summary (the benchmark's Round trip column) is a failure.</summary>
    public static bool IsFailedRoundTrip(string? verification) =>
        verification is not null && verification.StartsWith("MISMATCH", StringComparison.Ordinal);

    public static IReadOnlyList<string> Rank(IReadOnlyList<(double Min, double Max, int Runs)> byMean) =>
        RankValid([.. byMean]);

    // Loops, not LINQ over tuples: that ran as tier-0 JIT code in the ReadyToRun build.
    public static IReadOnlyList<string> Rank(IReadOnlyList<(double Min, double Max, int Runs, bool Failed)> byMean)
    {
        var ranked = new List<(double Min, double Max, int Runs)>(byMean.Count);
        for (var i = 0; i < byMean.Count; i++)
            if (!byMean[i].Failed) ranked.Add((byMean[i].Min, byMean[i].Max, byMean[i].Runs));
        var numbers = RankValid(ranked);
        var ranks = new string[byMean.Count];
        for (int i = 0, next = 0; i < ranks.Length; i++) ranks[i] = byMean[i].Failed ? Unranked : numbers[next++];
        return ranks;
    }

    private static List<string> RankValid(List<(double Min, double Max, int Runs)> byMean)
    {
        var ranks = new List<string>(byMean.Count);
        for (var i = 0; i < byMean.Count; i++)
        {
            var number = Fmt.Int(i + 1);
            if (byMean.Count == 1) { ranks.Add(Alone); continue; }
            if (byMean[i].Runs < 2) { ranks.Add(number + "?"); continue; }
            var overlaps = (i > 0 && Overlap(byMean[i - 1], byMean[i])) || (i + 1 < byMean.Count && Overlap(byMean[i], byMean[i + 1]));
            ranks.Add(overlaps ? number + "~" : number);
        }
        return ranks;
    }

    /// <summary>Whether two rows' ranges overlap (<paramref name="faster"/> has the lower mean).</summary>
    public static bool Overlap((double Min, double Max, int Runs) faster, (double Min, double Max, int Runs) slower) => slower.Min <= faster.Max;
}
