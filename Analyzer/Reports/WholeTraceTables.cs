using System.Globalization;
using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports;

/// <summary>
/// A trace without benchmark runs (any app, any recorder): the whole trace per thread, the way the seeds read a
/// trace in WPA with stack tags. The serializer tags find serializer code in any app; a user's tags file adds its own.
/// </summary>
internal static class WholeTraceTables
{
    public const int TopThreads = 20;
    public const int TopRows = 15;

    public static IEnumerable<TextTable> Tables(TraceAnalysis analysis)
    {
        var threads = analysis.Threads;
        var cpu = CpuWord(analysis.Trace);
        var perThread = new TextTable($"Whole trace, per thread ({cpu} ms; busiest {TopThreads})",
            ["Thread", "Name", "CPU ms", "Top stack tags", "Alloc MB", "Exceptions", "Contention ms", "JIT ms"]);
        foreach (var t in threads.Take(TopThreads))
            perThread.AddRow(Fmt.Int(t.ThreadId), t.Name ?? "", Fmt.Ms(t.CpuMs),
                string.Join(", ", t.Tags.OrderByDescending(x => x.Value).Take(3).Where(x => x.Value > 0).Select(x => $"{x.Key} {Fmt.Pct(x.Value / Math.Max(t.CpuMs, 1e-9))}")),
                Fmt.Mb(t.Counters.AllocatedBytes), Fmt.Int(t.Counters.Exceptions), Fmt.Ms(t.Counters.ContentionMs), Fmt.Ms(t.Counters.JitMs));
        if (threads.Count > TopThreads) perThread.Notes.Add($"{threads.Count - TopThreads} more thread(s) in the JSON output");
        yield return perThread;

        var total = threads.Sum(t => t.CpuMs);
        var tags = new TextTable($"Whole trace, {cpu} by stack tag (all threads)", ["Stack tag", "ms", "Share"]);
        foreach (var (tag, ms) in Sum(threads.SelectMany(t => t.Tags)).Take(TopRows)) tags.AddRow(tag, Fmt.Ms(ms), Fmt.Pct(ms / Math.Max(total, 1e-9)));
        if (analysis.Process.Modules.Count > 0 && threads.Sum(t => t.Tags.GetValueOrDefault(StackTagMatcher.Other)) > 0.5 * total)
            tags.Notes.Add($"{StackTagMatcher.Other}: no stack tag matched (the tags know serializers and the runtime, not this app); the module and namespace tables say where that time went");
        yield return tags;

        var p = analysis.Process;
        if (p.Modules.Count > 0) yield return LibraryTable($"Whole trace, {cpu} by module", "Module", p.Modules, p.CpuMs);
        if (p.Namespaces.Count > 0) yield return LibraryTable($"Whole trace, {cpu} by namespace", "Namespace", p.Namespaces, p.CpuMs);

        var allocated = threads.Sum(t => t.Counters.AllocatedBytes);
        if (allocated > 0)
        {
            var types = new TextTable("Whole trace, allocations by type (allocation ticks: one per ~100 KB)", ["Type", "MB", "Share"]);
            foreach (var (type, bytes) in Sum(threads.SelectMany(t => t.Counters.AllocatedBytesByType.Select(x => KeyValuePair.Create(x.Key, (double)x.Value)))).Take(TopRows))
                types.AddRow(type, Fmt.Mb((long)bytes), Fmt.Pct(bytes / allocated));
            yield return types;
        }
        if (threads.Any(t => t.Counters.Exceptions > 0))
        {
            var ex = new TextTable("Whole trace, exceptions by type, throwing frame [stack tag]", ["Exception", "Count"]);
            foreach (var (key, n) in Sum(threads.SelectMany(t => t.Counters.ExceptionsBySite.Select(x => KeyValuePair.Create(SiteText.Of(x.Key), (double)x.Value)))).Take(TopRows))
                ex.AddRow(key, Fmt.Int((long)n));
            yield return ex;
        }
        if (threads.Any(t => t.Counters.Contentions > 0))
        {
            var locks = new TextTable("Whole trace, lock contention by the code that waited [stack tag]", ["Frame", "Wait ms"]);
            foreach (var (frame, ms) in Sum(threads.SelectMany(t => t.Counters.ContentionMsBySite.Select(x => KeyValuePair.Create(SiteText.Of(x.Key), x.Value)))).Take(TopRows)) locks.AddRow(frame, Fmt.Ms(ms));
            yield return locks;
        }
    }

    /// <summary>
    /// CPU by library, inclusive (a sample counts once for each module or namespace on its stack) and exclusive (its
    /// leaf's: these sum to the CPU), as shares of every thread's CPU.
    /// </summary>
    private static TextTable LibraryTable(string title, string what, IReadOnlyList<LibraryCpu> rows, double total)
    {
        var table = new TextTable($"{title} ({Fmt.Ms(total)} ms in all; inclusive: time in it and what it called)", [what, "Inclusive ms", "Inclusive", "Exclusive ms", "Exclusive"]);
        foreach (var r in rows.Take(TopRows))
            table.AddRow(r.Name, Fmt.Ms(r.InclusiveMs), Fmt.Pct(r.InclusiveMs / Math.Max(total, 1e-9)), Fmt.Ms(r.ExclusiveMs), Fmt.Pct(r.ExclusiveMs / Math.Max(total, 1e-9)));
        if (rows.Count > TopRows) table.Notes.Add($"{rows.Count - TopRows} more in the JSON output");
        return table;
    }

    /// <summary>The whole trace's hot methods (--top), every thread's samples: the per-run table's rows, as shares of every thread's CPU.</summary>
    public static IEnumerable<TextTable> HotMethods(TraceAnalysis analysis, int top)
    {
        if (analysis.Process.HotMethods is not { Count: > 0 } methods) yield break;
        yield return HotMethodReport.Table($"Whole trace: top {top} methods by exclusive {(analysis.Trace.OnCpu ? "on-CPU" : "sampled")} time (all threads, {Fmt.Ms(analysis.Process.CpuMs)} ms)",
            methods.Values, top, analysis.Process.CpuMs);
    }

    public static string GcLine(TraceAnalysis analysis)
    {
        var p = analysis.Process;
        return string.Create(CultureInfo.InvariantCulture,
            $"Whole trace: {analysis.Threads.Count} active thread(s); GC {p.Gen0} gen0 / {p.Gen1} gen1 / {p.Gen2} gen2, paused {p.GcPauseMs:F1} ms in all, longest {p.MaxGcPauseMs:F1} ms; {analysis.Threads.Sum(t => t.Counters.Exceptions):N0} exception(s), {analysis.Threads.Sum(t => t.Counters.ContentionMs):F1} ms lock wait, {analysis.Threads.Sum(t => t.Counters.JitMs):F1} ms JIT");
    }

    public static JsonObject Json(TraceAnalysis analysis)
    {
        var p = analysis.Process;
        var json = new JsonObject
        {
            ["process"] = new JsonObject
            {
                ["gcCount"] = new JsonObject { ["gen0"] = p.Gen0, ["gen1"] = p.Gen1, ["gen2"] = p.Gen2 },
                ["gcPauseMs"] = p.GcPauseMs,
                ["maxGcPauseMs"] = p.MaxGcPauseMs,
            },
            ["threads"] = new JsonArray([.. analysis.Threads.Select(t => (JsonNode)new JsonObject
            {
                ["threadId"] = t.ThreadId,
                ["name"] = t.Name,
                ["cpuMs"] = t.CpuMs,
                ["samples"] = t.Samples,
                ["tags"] = Dict(t.Tags.OrderByDescending(x => x.Value)),
                ["allocatedBytes"] = t.Counters.AllocatedBytes,
                ["allocatedBytesByType"] = new JsonObject(t.Counters.AllocatedBytesByType.OrderByDescending(x => x.Value).Select(x => KeyValuePair.Create(x.Key, (JsonNode?)x.Value))),
                ["exceptions"] = t.Counters.Exceptions,
                ["exceptionsByType"] = new JsonObject(t.Counters.ExceptionsBySite.Select(x => KeyValuePair.Create(SiteText.Of(x.Key), (JsonNode?)x.Value))),
                ["contentionMs"] = t.Counters.ContentionMs,
                ["contentions"] = t.Counters.Contentions,
                ["contentionMsByFrame"] = Dict(t.Counters.ContentionMsBySite.OrderByDescending(x => x.Value).Select(x => KeyValuePair.Create(SiteText.Of(x.Key), x.Value))),
                ["jitMs"] = t.Counters.JitMs,
                ["jitMethods"] = t.Counters.JitMethods,
            })]),
        };
        // A trace without runs only (a benchmark trace's JSON is unchanged): CPU by library and, for --top, the hot methods.
        if (analysis.Runs.Count > 0) return json;
        json["cpuMs"] = p.CpuMs;
        json["modules"] = Libraries(p.Modules);
        json["namespaces"] = Libraries(p.Namespaces);
        if (p.HotMethods is { } hot)
            json["hotMethods"] = new JsonArray([.. hot.Values.OrderByDescending(m => m.ExclusiveMs).Select(m => (JsonNode)new JsonObject
            {
                ["method"] = m.Name,
                ["exclusiveMs"] = m.ExclusiveMs,
                ["inclusiveMs"] = m.InclusiveMs,
            })]);
        return json;
    }

    private static JsonArray Libraries(IReadOnlyList<LibraryCpu> rows) =>
        new([.. rows.Select(r => (JsonNode)new JsonObject { ["name"] = r.Name, ["inclusiveMs"] = r.InclusiveMs, ["exclusiveMs"] = r.ExclusiveMs })]);

    private static string CpuWord(TraceInfo trace) => trace.OnCpu ? "on-CPU" : "sampled managed";

    private static IEnumerable<(string Key, double Value)> Sum(IEnumerable<KeyValuePair<string, double>> values) =>
        values.GroupBy(x => x.Key).Select(g => (g.Key, g.Sum(x => x.Value))).OrderByDescending(x => x.Item2).ThenBy(x => x.Key, StringComparer.Ordinal);

    private static JsonObject Dict(IEnumerable<KeyValuePair<string, double>> values) =>
        new(values.Select(x => KeyValuePair.Create(x.Key, (JsonNode?)Math.Round(x.Value, 4))));
}
