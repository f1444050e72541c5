namespace EtwSerializerProfiler.Analyzer.Diff;

/// <summary>
/// Which serializers a diff compares and which it can only list: the two traces need not have run the same set (a
/// .NET Framework run has BinaryFormatter, a .NET 10 one cannot; a user may pick different --serializers per side).
/// A serializer is compared when at least one (operation, N) row is in both traces; it is "only in" a side when all its
/// rows are there; "not run" when neither trace has rows for it but a side said why (results.json "unsupported").
/// </summary>
internal sealed record SerializerSets(
    IReadOnlyList<string> Compared,
    IReadOnlyList<string> OnlyInBaseline,
    IReadOnlyList<string> OnlyInTrace,
    IReadOnlyList<string> NotRun)
{
    public static SerializerSets Of(TraceDiff diff)
    {
        var bySerializer = diff.Rows.GroupBy(r => r.Serializer, StringComparer.OrdinalIgnoreCase).ToList();
        List<string> Where(Func<IEnumerable<RowDiff>, bool> test) =>
            bySerializer.Where(g => test(g)).Select(g => g.Key).Order(StringComparer.OrdinalIgnoreCase).ToList();
        var withRows = bySerializer.Select(g => g.Key).ToHashSet(StringComparer.OrdinalIgnoreCase);
        bool Said(IReadOnlyDictionary<string, string> unsupported, string serializer) => unsupported.Keys.Contains(serializer, StringComparer.OrdinalIgnoreCase);
        var sets = new SerializerSets(
            Where(rows => rows.Any(r => r.Presence == Presence.Both)),
            Where(rows => rows.All(r => r.Presence == Presence.OnlyInBaseline)),
            Where(rows => rows.All(r => r.Presence == Presence.OnlyInTrace)),
            diff.Baseline.Unsupported.Keys.Concat(diff.Trace.Unsupported.Keys)
                .Where(s => !withRows.Contains(s)).Distinct(StringComparer.OrdinalIgnoreCase).Order(StringComparer.OrdinalIgnoreCase).ToList());
        return sets with { NotRunOnBoth = sets.NotRun.All(s => Said(diff.Baseline.Unsupported, s) && Said(diff.Trace.Unsupported, s)) };
    }

    /// <summary>Every serializer in <see cref="NotRun"/> was refused by both sides (BinaryFormatter on .NET 9+ twice): no difference.</summary>
    public bool NotRunOnBoth { get; init; }

    /// <summary>True when both traces ran exactly the same serializers (one both refused counts as the same).</summary>
    public bool Same => OnlyInBaseline.Count == 0 && OnlyInTrace.Count == 0 && NotRunOnBoth;
}
