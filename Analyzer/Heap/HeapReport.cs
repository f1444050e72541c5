using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using EtwSerializerProfiler.Analyzer.Export;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Heap;

/// <summary>Renders heap snapshot analyses like the other commands: terminal tables, CSV (the summary), Markdown, JSON.</summary>
public static partial class HeapReport
{
    public const int SchemaVersion = 1;

    /// <summary>`esp heap --list`: the snapshots a folder holds (and those that were not taken), without reading them.</summary>
    public static ReportDocument ListDocument(HeapSnapshotInput input, Func<string?, bool> selected)
    {
        var table = ListTable(input, selected);
        return new ReportDocument { Kind = ReportKind.HeapList, Parts = [new TablePart(table, BlankLineAfter: false)], CsvTables = () => [table] };
    }

    private static TextTable ListTable(HeapSnapshotInput input, Func<string?, bool> selected)
    {
        var table = new TextTable($"Heap snapshots in {input.DisplayName}", ["File", "Serializer", "Data", "N", "Run", "Status", "Dump MB", "Error"]);
        foreach (var d in input.Dumps.Where(d => d.Recorded is null || selected(d.Recorded.Serializer)))
        {
            var s = d.Recorded;
            table.AddRow(Path.GetFileName(d.Path), s?.Serializer ?? "?", s?.Data ?? "?", s is null ? "-" : Fmt.Int(s.Objects), s is null ? "-" : Fmt.Int(s.Run),
                s?.Status?.ToString() ?? "Taken", Fmt.Mb(new FileInfo(d.Path).Length), "");
        }
        foreach (var s in input.NotTaken.Where(n => selected(n.Serializer)))
            table.AddRow("-", s.Serializer, s.Data, Fmt.Int(s.Objects), Fmt.Int(s.Run), s.Status?.ToString() ?? "?", "-", s.Error ?? "");
        return table;
    }


    public static string Render(string source, IReadOnlyList<HeapSnapshotAnalysis> analyses, IReadOnlyList<HeapSnapshotInfo> notTaken, TableFormat format, int top) =>
        Exporters.Render(Document(source, analyses, notTaken, top), format);

    /// <summary>The snapshots for the exporters: the summary, then each snapshot's types and duplicate strings; CSV is the summary.</summary>
    public static ReportDocument Document(string source, IReadOnlyList<HeapSnapshotAnalysis> analyses, IReadOnlyList<HeapSnapshotInfo> notTaken, int top)
    {
        var summary = SummaryTable(analyses, notTaken);
        var parts = new List<ReportPart> { new TablePart(summary) };
        foreach (var a in analyses)
        {
            parts.Add(new TablePart(TypesTable(a, top)));
            if (DuplicatesTable(a, top) is { } duplicates) parts.Add(new TablePart(duplicates));
        }
        return new ReportDocument { Kind = ReportKind.Heap, Parts = parts, CsvTables = () => [summary], Json = () => Json(source, analyses, notTaken) };
    }

    public static TextTable SummaryTable(IReadOnlyList<HeapSnapshotAnalysis> analyses, IReadOnlyList<HeapSnapshotInfo> notTaken)
    {
        var table = new TextTable("Heap snapshots: the deserialized graph vs the original the benchmark built",
            ["Serializer", "Data", "N", "Serialized KB", "Original objects", "Original KB", "Deserialized objects", "Deserialized KB",
             "x original", "x serialized", "In-process KB", "Walk/in-process", "Strings", "Distinct", "Duplicate KB"]);
        foreach (var a in analyses.OrderBy(a => a.Snapshot.Objects).ThenBy(a => a.Deserialized.Bytes))
        {
            var s = a.Snapshot;
            table.AddRow(s.Serializer, s.Data, Fmt.Int(s.Objects), Kb(s.SerializedBytes),
                Fmt.Int(a.Original.Objects), Kb(a.Original.Bytes), Fmt.Int(a.Deserialized.Objects), Kb(a.Deserialized.Bytes),
                Ratio(a.Deserialized.Bytes, a.Original.Bytes), Ratio(a.Deserialized.Bytes, s.SerializedBytes),
                s.DeserializedInProcessBytes is { } inProcess ? Kb(inProcess) : "-",
                s.DeserializedInProcessBytes is { } p && p > 0 ? Fmt.Num((double)a.Deserialized.Bytes / p, "F3") : "-",
                Fmt.Int(a.Deserialized.Strings), Fmt.Int(a.Deserialized.DistinctStrings), Kb(a.Deserialized.DuplicateStringBytes));
        }
        table.Notes.Add("Objects/KB: everything reachable from the holder's field in the dump (ClrMD walk; each object once, so a shared instance counts once).");
        table.Notes.Add("In-process KB: GC.GetTotalMemory(true) after minus before the snapshot's deserialize, measured by the benchmark itself.");
        table.Notes.Add("Strings/Distinct: string instances and distinct contents in the deserialized graph; Duplicate KB: instances whose content another one already has.");
        foreach (var a in analyses)
        {
            if (a.Original.Strings > 0)
                table.Notes.Add($"{a.Snapshot.Serializer} N={a.Snapshot.Objects}: strings (instances/distinct values): original {a.Original.Strings}/{a.Original.DistinctStrings}, deserialized {a.Deserialized.Strings}/{a.Deserialized.DistinctStrings}.");
            if (a.SharedObjects > 0)
                table.Notes.Add($"{a.Snapshot.Serializer} N={a.Snapshot.Objects}: {a.SharedObjects} objects ({Kb(a.SharedBytes)} KB) are reachable from both graphs (counted in each).");
            if (a.Deserialized.FrozenObjects + a.Original.FrozenObjects > 0)
                table.Notes.Add($"{a.Snapshot.Serializer} N={a.Snapshot.Objects}: {a.Deserialized.FrozenObjects} (deserialized) and {a.Original.FrozenObjects} (original) references lead to frozen string literals, not counted (not GC heap).");
            if (a.Deserialized.Unreadable + a.Original.Unreadable > 0)
                table.Notes.Add($"{a.Snapshot.Serializer} N={a.Snapshot.Objects}: {a.Deserialized.Unreadable + a.Original.Unreadable} references could not be read from the dump; totals are low by that much.");
        }
        foreach (var n in notTaken) table.Notes.Add($"{n.Serializer} N={n.Objects}: no snapshot ({n.Status}): {n.Error}");
        return table;
    }

    public static TextTable TypesTable(HeapSnapshotAnalysis a, int top)
    {
        var table = new TextTable($"{a.Snapshot.Serializer} N={a.Snapshot.Objects} ({a.File}): objects by type, deserialized vs original",
            ["Type", "Original count", "Original KB", "Deserialized count", "Deserialized KB", "Delta KB"]);
        foreach (var t in a.Types.Take(top))
            table.AddRow(ShortTypeName(t.Type), Fmt.Int(t.OriginalCount), Kb(t.OriginalBytes), Fmt.Int(t.DeserializedCount), Kb(t.DeserializedBytes),
                Kb(t.DeserializedBytes - t.OriginalBytes));
        if (a.Types.Count > top) table.Notes.Add($"{a.Types.Count - top} more types (--top, or --format json for all)");
        table.AddRow("(total)", Fmt.Int(a.Original.Objects), Kb(a.Original.Bytes), Fmt.Int(a.Deserialized.Objects), Kb(a.Deserialized.Bytes), Kb(a.Deserialized.Bytes - a.Original.Bytes));
        return table;
    }

    public static TextTable? DuplicatesTable(HeapSnapshotAnalysis a, int top)
    {
        if (a.DuplicateStrings.Count == 0) return null;
        var table = new TextTable($"{a.Snapshot.Serializer} N={a.Snapshot.Objects}: duplicate strings (same content, different instances)",
            ["Graph", "Length", "Instances", "KB", "Wasted KB", "Value"]);
        foreach (var d in a.DuplicateStrings.Take(top))
            table.AddRow(d.Graph, Fmt.Int(d.Length), Fmt.Int(d.Instances), Kb(d.InstanceBytes), Kb(d.WastedBytes), d.Preview);
        if (a.DuplicateStrings.Count > top) table.Notes.Add($"{a.DuplicateStrings.Count - top} more duplicated values");
        return table;
    }

    public static JsonObject Json(string source, IReadOnlyList<HeapSnapshotAnalysis> analyses, IReadOnlyList<HeapSnapshotInfo> notTaken)
    {
        return new JsonObject
        {
            ["schemaVersion"] = SchemaVersion,
            ["source"] = source,
            ["snapshots"] = JsonSerializer.SerializeToNode(analyses, HeapJsonContext.Default.IReadOnlyListHeapSnapshotAnalysis),
            ["notTaken"] = JsonSerializer.SerializeToNode(notTaken, HeapJsonContext.Default.IReadOnlyListHeapSnapshotInfo),
        };
    }

    /// <summary>List&lt;EtwSerializerProfiler.Benchmark.Data.SharedTitleBook&gt; → List&lt;SharedTitleBook&gt;: namespaces make tables unreadable.</summary>
    public static string ShortTypeName(string name) => Namespace().Replace(name, "");

    [GeneratedRegex(@"\b(?:[A-Za-z_][A-Za-z0-9_]*\.)+(?=[A-Za-z_])")]
    private static partial Regex Namespace();

    private static string Kb(long bytes) => Fmt.Num(bytes / 1024.0);

    private static string Ratio(long a, long b) => b > 0 ? Fmt.Num((double)a / b) + "x" : "-";
}

// BenchmarkResults.JsonOptions' settings, not indented, as generated metadata (the native esp has no reflection-based serializer).
[System.Text.Json.Serialization.JsonSourceGenerationOptions(PropertyNamingPolicy = System.Text.Json.Serialization.JsonKnownNamingPolicy.CamelCase,
    DefaultIgnoreCondition = System.Text.Json.Serialization.JsonIgnoreCondition.WhenWritingNull)]
[System.Text.Json.Serialization.JsonSerializable(typeof(IReadOnlyList<HeapSnapshotAnalysis>))]
[System.Text.Json.Serialization.JsonSerializable(typeof(IReadOnlyList<HeapSnapshotInfo>))]
internal sealed partial class HeapJsonContext : System.Text.Json.Serialization.JsonSerializerContext;
