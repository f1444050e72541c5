using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Output;

/// <summary>
/// Turns per-run results into the tables a user reads: measured runs aggregated per operation (one serializer call),
/// with their spread and a rank that says when the spread is too wide to order two rows; warm-up runs counted apart.
/// </summary>
public static class ResultsReport
{
    public static TextTable Summary(BenchmarkResults results)
    {
        var table = new TextTable(
            $"Serializer benchmark ({results.Runtime}, {results.Configuration})",
            ["Serializer", "Operation", "N", "Runs", "Ops/run", "Mean ms", "Min ms", "CV", "Rank", "Warm-up", "Steady", "Size KB",
             "Gen0/1k", "Gen1/1k", "Gen2/1k", "GC pause ms", "Alloc KB", "CPU ms", "Round trip"]);
        var warmups = (results.Warmups ?? []).ToDictionary(w => (w.Serializer, w.Operation, w.Objects), w => w);
        var cases = results.Runs
            .GroupBy(r => (r.Serializer, r.Operation, r.Objects))
            .Select(g => CaseStats.Of([.. g]))
            .GroupBy(c => (c.Operation, c.Objects))
            .OrderBy(g => g.Key.Operation == "serialize" ? 0 : g.Key.Operation == "deserialize" ? 1 : 2)
            .ThenBy(g => g.Key.Objects);
        var unsteady = new List<string>();
        var failed = false;
        var compiling = new List<string>();
        foreach (var group in cases)
        {
            var ranked = Ranking.Rank([.. group.OrderBy(c => c.MeanMs)]);
            foreach (var (c, rank) in ranked)
            {
                warmups.TryGetValue((c.Serializer, c.Operation, c.Objects), out var w);
                table.AddRow(
                    c.Serializer, c.Operation, Fmt.Int(c.Objects), Fmt.Int(c.Measured.Count), Fmt.Int(c.Operations),
                    Fmt.Ms(c.MeanMs), Fmt.Ms(c.MinMs), c.Measured.Count > 1 ? Fmt.Pct(c.Cv) : "-", rank,
                    Fmt.Int(w?.WarmupRuns ?? c.WarmupRuns), w is null ? "-" : w.SteadyState ? "yes" : "no",
                    Fmt.Num(c.First.SizeBytes / 1024.0),
                    Fmt.Num(c.GcsPerThousand.Gen0), Fmt.Num(c.GcsPerThousand.Gen1), Fmt.Num(c.GcsPerThousand.Gen2),
                    Fmt.Ms(c.PerOperation(r => r.GcPauseMs)), Fmt.Num(c.PerOperation(r => r.AllocatedBytes) / 1024.0),
                    Fmt.Ms(c.PerOperation(r => r.CpuMs)), c.First.Verification ?? "-");
                failed |= rank == RankRule.Unranked;
                if (w is { SteadyState: false } && w.WarmupRuns > 0) unsteady.Add($"{c.Serializer} {c.Operation} N={Fmt.Int(c.Objects)}: {w.Reason}");
                if (w is { MeasuredCompiledMethods: > 0 } m) compiling.Add($"{c.Serializer} {c.Operation} N={Fmt.Int(c.Objects)} ({Fmt.Int(m.MeasuredCompiledMethods.Value)})");
            }
        }
        table.Notes.Add("Per operation (one serializer call; a run repeats it Ops/run times): mean and min over the measured runs, CV = their standard deviation / mean.");
        table.Notes.Add("Rank: by mean within an operation and N; ~ = its min-max range overlaps a neighbour's, so that order is within run-to-run noise (more --runs, or launches pooled by `esp diff`).");
        table.Notes.Add("Warm-up: runs before the measured ones (--warmup auto: until the JIT is done and durations settle); Steady: whether that held within the bounds. GC columns are collections per 1,000 operations by condemned generation.");
        if (failed) table.Notes.Add($"Rank {RankRule.Unranked}: the round trip did not give the data back (Round trip MISMATCH), so its time is not a result and it is not ranked.");
        if (unsteady.Count > 0) table.Notes.Add($"Not at steady state ({unsteady.Count}): " + string.Join("; ", unsteady));
        if (compiling.Count > 0) table.Notes.Add("Methods the JIT compiled (anywhere in the process) during the measured runs: " + string.Join(", ", compiling));
        if (results.AppContextSwitches is { Count: > 0 } switches)
            table.Notes.Add($"AppContext: {string.Join(", ", switches.Select(s => $"{s.Key}={(s.Value ? "true" : "false")}"))}; dynamic code supported: {(results.DynamicCodeSupported == true ? "yes" : "no")}");
        foreach (var u in results.Unsupported.DistinctBy(u => u.Serializer)) table.Notes.Add($"{u.Serializer}: not run: {u.Reason}");
        foreach (var e in results.Errors) table.Notes.Add($"ERROR {e}");
        foreach (var h in results.HeapSnapshots ?? []) table.Notes.Add(HeapNote(h));
        return table;
    }

    /// <summary>--quiet: what the table's notes would have said that the results alone do not: errors, serializers not run.</summary>
    public static IEnumerable<string> Problems(BenchmarkResults results) =>
        [.. results.Errors.Select(e => $"ERROR {e}"),
         .. results.Unsupported.Count == 0 ? [] : new[] { $"not run: {string.Join(", ", results.Unsupported.Select(u => u.Serializer).Distinct())} (why: results.json, \"unsupported\")" }];

    /// <summary>The in-process sizes (GC.GetTotalMemory deltas) and where the dump went; `esp heap` has the details.</summary>
    private static string HeapNote(HeapSnapshotInfo h) =>
        $"heap snapshot {h.Serializer} N={Fmt.Int(h.Objects)}: original {Fmt.Num((h.OriginalInProcessBytes ?? 0) / 1024.0)} KB, " +
        $"deserialized {Fmt.Num((h.DeserializedInProcessBytes ?? 0) / 1024.0)} KB in-process, serialized {Fmt.Num(h.SerializedBytes / 1024.0)} KB; " +
        (h.Status == HeapSnapshotStatus.Taken ? $"dump {h.File}" : $"{h.Status}: {h.Error}");

    public static string RunsCsv(BenchmarkResults results)
    {
        var table = new TextTable("runs", ["serializer", "version", "format", "operation", "data", "objects", "run", "warmup", "threads", "durationMs", "sizeBytes", "gen0", "gen1", "gen2", "gcPauseMs", "allocatedBytes", "cpuMs", "verification",
            "operations", "durationPerOperationMs", "compiledMethods", "compilationMs"]);
        foreach (var r in results.Runs)
            table.AddRow(r.Serializer, r.SerializerVersion ?? "", r.Format ?? "", r.Operation, r.Data, Fmt.Int(r.Objects), Fmt.Int(r.Run),
                r.Warmup ? "true" : "false", Fmt.Int(r.Threads), Fmt.Num(r.DurationMs, "F4"), Fmt.Int(r.SizeBytes),
                Fmt.Int(r.GcCount.Gen0), Fmt.Int(r.GcCount.Gen1), Fmt.Int(r.GcCount.Gen2), Fmt.Num(r.GcPauseMs, "F4"),
                Fmt.Int(r.AllocatedBytes), Fmt.Num(r.CpuMs, "F3"), r.Verification ?? "",
                Fmt.Int(r.Operations), Fmt.Num(r.DurationPerOperationMs, "F6"),
                r.CompiledMethods is { } c ? Fmt.Int(c) : "", r.CompilationMs is { } t ? Fmt.Num(t, "F3") : "");
        return Csv.Table(table);
    }
}
