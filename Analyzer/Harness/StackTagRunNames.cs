using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;

namespace EtwSerializerProfiler.Analyzer.Harness;

/// <summary>
/// Names runs that were found without their names: with the run provider enabled by bare name in dotnet-trace, the
/// trace has the marker's waits (the windows, and from the marker method the operation) but no RunStart. The
/// serializer is the one whose own Serialize/Deserialize frame the run's samples sit under (the built-in tags
/// Serialize\X, Deserialize\X). N and the operations per run are not in such a trace; neither is which runs were
/// warm-ups, so that is inferred from the benchmark's structure (<see cref="InferredWarmups"/>).
/// </summary>
internal static class StackTagRunNames
{
    public const string Unnamed = "(unnamed)";

    private static readonly string[] OperationTags = ["Serialize\\", "Deserialize\\"];

    /// <summary>
    /// The serializer whose own frame is outermost on the stack (the one the benchmark called; a serializer may call
    /// others below it), or null when no frame carries a serializer tag.
    /// </summary>
    public static string? SerializerOf(IReadOnlyList<StackFrame> framesLeafFirst, StackTagMatcher matcher)
    {
        for (var i = framesLeafFirst.Count - 1; i >= 0; i--)
        {
            var tag = matcher.MatchFrame(framesLeafFirst[i].Module, framesLeafFirst[i].Method);
            if (tag is null) continue;
            foreach (var prefix in OperationTags)
                if (tag.StartsWith(prefix, StringComparison.Ordinal) && tag.Length > prefix.Length) return tag[prefix.Length..];
        }
        return null;
    }

    /// <summary>
    /// Renames <paramref name="runsInTimeOrder"/> (all found without names) and marks their inferred warm-ups in
    /// <see cref="RunDraft.WarmupFromEvents"/>: the serializer with the most sampled time in the run; for a run
    /// too short to be sampled (a case's first warm-up run does one call), the next named run of the same operation,
    /// else the previous one. Runs are numbered per serializer and operation in time order, N stays 0 (unknown).
    /// </summary>
    /// <param name="votes">Per run, sampled ms by serializer (from <see cref="SerializerOf"/>); runs without samples may be absent.</param>
    public static InferredRunNames Apply(IReadOnlyList<RunDraft> runsInTimeOrder, IReadOnlyDictionary<RunDraft, Dictionary<string, double>> votes)
    {
        var own = runsInTimeOrder.Select(r => votes.TryGetValue(r, out var v) && v.Count > 0
            ? v.OrderByDescending(x => x.Value).ThenBy(x => x.Key, StringComparer.Ordinal).First().Key
            : null).ToList();
        var names = new string[runsInTimeOrder.Count];
        int bySamples = 0, byNeighbour = 0, unnamed = 0;
        for (var i = 0; i < names.Length; i++)
        {
            if (own[i] is { } name) { names[i] = name; bySamples++; continue; }
            var neighbour = Neighbour(runsInTimeOrder, own, i);
            if (neighbour is null) unnamed++;
            else byNeighbour++;
            names[i] = neighbour ?? Unnamed;
        }

        var warmups = InferredWarmups.Infer([.. names.Select((n, i) => (n, runsInTimeOrder[i].Key.Operation))], out var batches, out var measuredPerCase);
        var counts = new Dictionary<(string, string), int>();
        for (var i = 0; i < names.Length; i++)
        {
            var run = runsInTimeOrder[i];
            var key = (names[i], run.Key.Operation);
            var index = counts.GetValueOrDefault(key);
            counts[key] = index + 1;
            run.Key = new RunKey(names[i], run.Key.Operation, 0, index);
            // A serializer and operation left with warm-ups only reports them (TraceAnalyzer.MarkWarmups).
            run.WarmupFromEvents = warmups[i];
        }
        return new InferredRunNames(names.Length, bySamples, byNeighbour, unnamed, batches, measuredPerCase);
    }

    private static string? Neighbour(IReadOnlyList<RunDraft> runs, List<string?> own, int i)
    {
        var operation = runs[i].Key.Operation;
        for (var j = i + 1; j < runs.Count; j++)
            if (runs[j].Key.Operation == operation && own[j] is { } next) return next;
        for (var j = i - 1; j >= 0; j--)
            if (runs[j].Key.Operation == operation && own[j] is { } previous) return previous;
        return null;
    }
}
