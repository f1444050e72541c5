namespace EtwSerializerProfiler.Analyzer.Harness;

/// <summary>
/// Which runs were warm-ups, for runs found without their run events (marker waits named from stack tags): inferred
/// from the benchmark's structure, since the trace does not say. The structure (docs/benchmark.md, "Warm-up"): each
/// case's measured runs come as one block of R runs (<c>--runs</c>), right after one warm-up run of the same case;
/// before that, serialize and deserialize of one serializer warm up in turn (batches of one run), or one of them
/// alone (a batch of warm-ups only). So, over batches (consecutive runs of one serializer and operation):
/// <list type="number">
/// <item>R is estimated as the most common batch length minus one, among batches of two or more runs (every case
/// ends with a batch of 1 + R; ties go to the shorter).</item>
/// <item>A batch of one run is a warm-up.</item>
/// <item>A longer batch's last min(length - 1, R) runs are measured, the rest warm-ups (a case's last warm-up run of
/// the interleaving can run right before its final warm-up run, in one batch).</item>
/// <item>A batch that is followed by a batch of two or more runs of the same serializer's other operation and then
/// by another such batch of its own serializer and operation was a warm-up alone (the other operation reached steady
/// state first and ran its measured runs in between): all warm-ups. (The next size's case starts with single runs,
/// so a measured batch is not mistaken for one.)</item>
/// </list>
/// Known limits, said in docs/analyzer.md: a trace of <c>--warmup 0</c> has no warm-ups but loses each case's first
/// run to this rule; a single-operation trace (<c>--test serialize</c>) runs the sizes of one serializer back to back,
/// one batch, whose measured runs are taken as its last R.
/// </summary>
internal static class InferredWarmups
{
    /// <summary>Consecutive runs of one serializer and operation, as indices into the runs in time order.</summary>
    public sealed record Batch(string Serializer, string Operation, int First, int Count);

    public static List<Batch> Batches(IReadOnlyList<(string Serializer, string Operation)> runs)
    {
        var batches = new List<Batch>();
        for (var i = 0; i < runs.Count; i++)
        {
            if (batches.Count > 0 && batches[^1] is var last && last.Serializer == runs[i].Serializer && last.Operation == runs[i].Operation)
                batches[^1] = last with { Count = last.Count + 1 };
            else batches.Add(new Batch(runs[i].Serializer, runs[i].Operation, i, 1));
        }
        return batches;
    }

    /// <summary>The estimated measured runs per case (R), or 0 when no batch has more than one run.</summary>
    public static int MeasuredPerCase(IReadOnlyList<Batch> batches) =>
        batches.Where(b => b.Count >= 2).GroupBy(b => b.Count)
            .OrderByDescending(g => g.Count()).ThenBy(g => g.Key)
            .Select(g => g.Key - 1).FirstOrDefault();

    /// <summary>Per run (same order as <paramref name="runs"/>): whether it is taken as a warm-up.</summary>
    public static bool[] Infer(IReadOnlyList<(string Serializer, string Operation)> runs, out int batchCount, out int measuredPerCase)
    {
        var batches = Batches(runs);
        var r = MeasuredPerCase(batches);
        var warmup = new bool[runs.Count];
        for (var b = 0; b < batches.Count; b++)
        {
            var batch = batches[b];
            var measured = batch.Count < 2 || WarmedAlone(batches, b) ? 0 : Math.Min(batch.Count - 1, r);
            for (var i = 0; i < batch.Count - measured; i++) warmup[batch.First + i] = true;
        }
        batchCount = batches.Count;
        measuredPerCase = r;
        return warmup;
    }

    private static bool WarmedAlone(List<Batch> batches, int b) =>
        b + 2 < batches.Count
        && batches[b + 1].Serializer == batches[b].Serializer && batches[b + 1].Operation != batches[b].Operation && batches[b + 1].Count >= 2
        && batches[b + 2].Serializer == batches[b].Serializer && batches[b + 2].Operation == batches[b].Operation && batches[b + 2].Count >= 2;
}
