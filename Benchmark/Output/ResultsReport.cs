using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Output;

/// <summary>Turns per-run results into the tables a user reads: measured runs aggregated, warm-up shown apart.</summary>
public static class ResultsReport
{
    public static TextTable Summary(BenchmarkResults results)
    {
        var table = new TextTable(
            $"Serializer benchmark ({results.Runtime}, {results.Configuration})",
            ["Serializer", "Operation", "N", "Runs", "Mean ms", "Min ms", "Warm-up ms", "Size KB", "Gen0", "Gen1", "Gen2", "GC pause ms", "Alloc MB", "CPU ms", "Round trip"]);
        var groups = results.Runs
            .GroupBy(r => (r.Serializer, r.Operation, r.Objects))
            .OrderBy(g => g.Key.Operation == "serialize" ? 0 : g.Key.Operation == "deserialize" ? 1 : 2)
            .ThenBy(g => g.Key.Objects)
            .ThenBy(g => g.Where(r => !r.Warmup).DefaultIfEmpty(g.First()).Average(r => r.DurationMs));
        foreach (var g in groups)
        {
            var all = g.ToList();
            var measured = all.Where(r => !r.Warmup).ToList();
            if (measured.Count == 0) measured = all; // a single run (or firstcall) is all there is
            var warm = all.FirstOrDefault(r => r.Warmup && all.Count > 1);
            var gcs = measured.Aggregate(GcCounts.Zero, (acc, r) => acc + r.GcCount);
            table.AddRow(
                g.Key.Serializer, g.Key.Operation, Fmt.Int(g.Key.Objects), Fmt.Int(measured.Count),
                Fmt.Ms(measured.Average(r => r.DurationMs)), Fmt.Ms(measured.Min(r => r.DurationMs)),
                warm is null ? "-" : Fmt.Ms(warm.DurationMs),
                Fmt.Num(all[0].SizeBytes / 1024.0),
                Fmt.Num((double)gcs.Gen0 / measured.Count), Fmt.Num((double)gcs.Gen1 / measured.Count), Fmt.Num((double)gcs.Gen2 / measured.Count),
                Fmt.Ms(measured.Average(r => r.GcPauseMs)),
                Fmt.Mb((long)measured.Average(r => r.AllocatedBytes)),
                Fmt.Ms(measured.Average(r => r.CpuMs)),
                all[0].Verification ?? "-");
        }
        table.Notes.Add("Mean/Min over measured runs; run 0 is the warm-up. GC columns are collections per run by condemned generation.");
        if (results.AppContextSwitches is { Count: > 0 } switches)
            table.Notes.Add($"AppContext: {string.Join(", ", switches.Select(s => $"{s.Key}={(s.Value ? "true" : "false")}"))}; dynamic code supported: {(results.DynamicCodeSupported == true ? "yes" : "no")}");
        foreach (var u in results.Unsupported.DistinctBy(u => u.Serializer)) table.Notes.Add($"{u.Serializer}: not run: {u.Reason}");
        foreach (var e in results.Errors) table.Notes.Add($"ERROR {e}");
        foreach (var h in results.HeapSnapshots ?? []) table.Notes.Add(HeapNote(h));
        return table;
    }

    /// <summary>The in-process sizes (GC.GetTotalMemory deltas) and where the dump went; `esp heap` has the details.</summary>
    private static string HeapNote(HeapSnapshotInfo h) =>
        $"heap snapshot {h.Serializer} N={Fmt.Int(h.Objects)}: original {Fmt.Num((h.OriginalInProcessBytes ?? 0) / 1024.0)} KB, " +
        $"deserialized {Fmt.Num((h.DeserializedInProcessBytes ?? 0) / 1024.0)} KB in-process, serialized {Fmt.Num(h.SerializedBytes / 1024.0)} KB; " +
        (h.Status == HeapSnapshotStatus.Taken ? $"dump {h.File}" : $"{h.Status}: {h.Error}");

    public static string RunsCsv(BenchmarkResults results)
    {
        var table = new TextTable("runs", ["serializer", "version", "format", "operation", "data", "objects", "run", "warmup", "threads", "durationMs", "sizeBytes", "gen0", "gen1", "gen2", "gcPauseMs", "allocatedBytes", "cpuMs", "verification"]);
        foreach (var r in results.Runs)
            table.AddRow(r.Serializer, r.SerializerVersion ?? "", r.Format ?? "", r.Operation, r.Data, Fmt.Int(r.Objects), Fmt.Int(r.Run),
                r.Warmup ? "true" : "false", Fmt.Int(r.Threads), Fmt.Num(r.DurationMs, "F4"), Fmt.Int(r.SizeBytes),
                Fmt.Int(r.GcCount.Gen0), Fmt.Int(r.GcCount.Gen1), Fmt.Int(r.GcCount.Gen2), Fmt.Num(r.GcPauseMs, "F4"),
                Fmt.Int(r.AllocatedBytes), Fmt.Num(r.CpuMs, "F3"), r.Verification ?? "");
        return table.Render(TableFormat.Csv);
    }
}
