using System.Globalization;
using System.Text;
using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.Diff;
using EtwSerializerProfiler.Analyzer.Export;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports;

/// <summary>A <see cref="TraceDiff"/> as a report: header, tables, the long CSV table and the JSON contract of docs/diff.md.</summary>
public static class DiffReport
{
    public const int SchemaVersion = 1;

    /// <summary>Stack tags shown per row in text and Markdown; CSV and JSON carry all of them.</summary>
    public const int TagsPerRow = 8;

    private const double BytesPerMb = 1024.0 * 1024.0;

    public static string Render(TraceDiff diff, TableFormat format) => Exporters.Render(Document(diff), format);

    /// <summary>The diff for the exporters: the header lines, the tables; CSV is the long table, one line per metric.</summary>
    public static ReportDocument Document(TraceDiff diff) => new()
    {
        Kind = ReportKind.Diff,
        Heading = "esp diff",
        Parts = [new LinesPart(Header(diff), EscapeMarkdown: false), .. Tables(diff).Select(t => new TablePart(t))],
        CsvTables = [LongTable(diff)],
        Json = () => Json(diff),
        Html = _ => Html.DiffHtmlReport.Render(diff),
    };

    public static IReadOnlyList<string> Header(TraceDiff diff)
    {
        var s = diff.Settings;
        var lines = new List<string>
        {
            $"baseline: {Describe(diff.Baseline)}",
            $"trace:    {Describe(diff.Trace)}",
            $"Δ = trace − baseline, per operation (mean of measured runs, each run's figures divided by the calls it made; warm-up excluded). Noise: Welch's t-test on the runs of both traces, α = {s.Alpha.ToString(CultureInfo.InvariantCulture)}: " +
            $"\"sig\" = significant, \"noise\" = not distinguishable from run-to-run variance, \"n/a\" = {NoiseVerdict.NotEnoughRuns} (fewer than 2 measured runs on a side).",
        };
        // Two runtimes (esp record --runtime 8.0,10.0): each side named by its runtime, so Δ reads as "10 minus 8".
        if (diff.Baseline.Runtime is { } before && diff.Trace.Runtime is { } after && before != after)
            lines.Add($"runtimes: baseline = {before}, trace = {after}; Δ = {after} − {before}");
        // One process per side cannot show process-to-process noise, which on a shared machine is the larger one.
        if (diff.Baseline.Launches.Count == 1 || diff.Trace.Launches.Count == 1)
            lines.Add($"one launch on {(diff.Baseline.Launches.Count == 1 && diff.Trace.Launches.Count == 1 ? "each side" : diff.Baseline.Launches.Count == 1 ? "the baseline side" : "the trace side")}: " +
                "the noise verdicts see run-to-run variance inside one process only, not between processes; record several launches (esp record --launches 3) and pool them (B1 B2 vs T1 T2)");
        var sets = SerializerSets.Of(diff);
        if (!sets.Same) lines.Add(SerializersLine(sets));
        lines.AddRange(diff.Warnings.Select(w => "warning: " + w));
        foreach (var (label, side) in new[] { ("baseline", diff.Baseline), ("trace", diff.Trace) })
            if (side.Warnings.Count > 0)
                lines.Add(side.Launches.Count == 1
                    ? $"{label}: {side.Warnings.Count} analyzer warning(s); `esp analyze {side.Path}` lists them"
                    : $"{label}: {side.Warnings.Count} warning(s): " + string.Join("; ", side.Warnings));
        return lines;
    }

    /// <summary>
    /// When the two traces ran different serializers (a .NET Framework trace against a .NET one, say): what is compared
    /// and what is only listed, so a short comparison is not mistaken for a complete one.
    /// </summary>
    private static string SerializersLine(SerializerSets sets)
    {
        static string Names(IReadOnlyList<string> names) => names.Count == 0 ? "none" : string.Join(", ", names);
        var parts = new List<string> { $"compared {sets.Compared.Count} ({Names(sets.Compared)})" };
        if (sets.OnlyInBaseline.Count > 0) parts.Add($"only in baseline {sets.OnlyInBaseline.Count} ({Names(sets.OnlyInBaseline)})");
        if (sets.OnlyInTrace.Count > 0) parts.Add($"only in trace {sets.OnlyInTrace.Count} ({Names(sets.OnlyInTrace)})");
        if (sets.NotRun.Count > 0) parts.Add($"not run in either {sets.NotRun.Count} ({Names(sets.NotRun)})");
        return "serializers differ: " + string.Join("; ", parts) + ". The one-sided ones are listed under \"Only in one trace\", not compared.";
    }

    public static IEnumerable<TextTable> Tables(TraceDiff diff)
    {
        var both = diff.Rows.Where(r => r.Presence == Presence.Both).ToList();
        if (both.Count > 0)
        {
            yield return DurationTable(both, diff.Settings);
            yield return CpuTable(both, diff.Baseline, diff.Trace);
            yield return GcTable(both);
            yield return ExplainedTable(both, diff.Settings);
            foreach (var row in both) yield return TagTable(row);
        }
        var oneSided = diff.Rows.Where(r => r.Presence != Presence.Both).ToList();
        var unmatchedUnsupported = UnsupportedWithoutRows(diff).ToList();
        if (oneSided.Count > 0 || unmatchedUnsupported.Count > 0) yield return OneSidedTable(oneSided, unmatchedUnsupported);
        if (diff.Rows.Count == 0)
        {
            var empty = new TextTable("no runs in either trace", ["Note"]);
            empty.AddRow("neither trace holds measured runs (check --serializers and the analyzer warnings)");
            yield return empty;
        }
    }

    private static TextTable DurationTable(List<RowDiff> rows, DiffSettings settings)
    {
        var table = new TextTable($"Duration, ms per operation (Runs = measured runs baseline/trace; CI = {Fmt.Pct(1 - settings.Alpha)} confidence interval of Δ)",
            ["Serializer", "Operation", "N", "Runs", "Base ms", "Trace ms", "Δ ms", "Δ %", "Δ CI", "Noise"]);
        foreach (var r in rows)
        {
            var d = r.Metric(RowDiff.DurationMs);
            table.AddRow(r.Serializer, r.Operation, Fmt.Objects(r.Objects), $"{d.Baseline!.Runs}/{d.Trace!.Runs}",
                Fmt.Ms(d.Baseline.Mean), Fmt.Ms(d.Trace.Mean), Signed(d.Delta), SignedPct(d.RelativeDelta), Ci(d.Noise), Noise(d.Noise));
        }
        return table;
    }

    private static TextTable CpuTable(List<RowDiff> rows, DiffSide baseline, DiffSide trace)
    {
        var table = new TextTable($"CPU, ms per operation (CPU = {CpuMeaning(baseline, trace)}, what the tags split; thread = the worker thread's CPU clock, measured in-process)",
            ["Serializer", "Operation", "N", "Base CPU", "Trace CPU", "Δ CPU", "Δ CPU %", "CPU noise", "Base thread", "Trace thread", "Δ thread", "Δ thread %", "Thread noise"]);
        foreach (var r in rows)
        {
            var c = r.Metric(RowDiff.CpuMs);
            var t = r.TryMetric(RowDiff.ThreadCpuMs);
            table.AddRow(r.Serializer, r.Operation, Fmt.Objects(r.Objects),
                Fmt.Ms(c.Baseline!.Mean), Fmt.Ms(c.Trace!.Mean), Signed(c.Delta), SignedPct(c.RelativeDelta), Noise(c.Noise),
                t is null ? "-" : Fmt.Ms(t.Baseline!.Mean), t is null ? "-" : Fmt.Ms(t.Trace!.Mean), Signed(t?.Delta), SignedPct(t?.RelativeDelta), t is null ? "-" : Noise(t.Noise));
        }
        return table;
    }

    /// <summary>Each side's CPU source, said once when both agree: the two sources differ by up to 2x (docs/analyzer.md).</summary>
    private static string CpuMeaning(DiffSide baseline, DiffSide trace)
    {
        static string Of(CpuSourceKind? source) => source switch
        {
            null => "kernel samples in some launches, EventPipe's in others",
            { } kind when kind.IsOnCpu() => "on-CPU time of the worker, kernel samples",
            _ => "sampled managed time, EventPipe",
        };
        return baseline.CpuSource?.IsOnCpu() == trace.CpuSource?.IsOnCpu() // both mixed (null) agree too, as they did as strings
            ? Of(baseline.CpuSource)
            : $"baseline: {Of(baseline.CpuSource)}; trace: {Of(trace.CpuSource)}; not comparable";
    }

    private static TextTable GcTable(List<RowDiff> rows)
    {
        var table = new TextTable("GC and allocations per operation (GCs = gen0+gen1+gen2 collections inside the runs)",
            ["Serializer", "Operation", "N", "Base GCs", "Trace GCs", "Δ GCs", "GC noise", "Base pause ms", "Trace pause ms", "Δ pause ms", "Pause noise", "Base MB", "Trace MB", "Δ MB", "Δ alloc %", "Alloc noise"]);
        foreach (var r in rows)
        {
            var g = r.Metric(RowDiff.GcCount);
            var p = r.Metric(RowDiff.GcPauseMs);
            var a = r.Metric(RowDiff.AllocatedBytes);
            table.AddRow(r.Serializer, r.Operation, Fmt.Objects(r.Objects),
                Fmt.Num(g.Baseline!.Mean), Fmt.Num(g.Trace!.Mean), Signed(g.Delta, "F1"), Noise(g.Noise),
                Fmt.Ms(p.Baseline!.Mean), Fmt.Ms(p.Trace!.Mean), Signed(p.Delta), Noise(p.Noise),
                Mb(a.Baseline!.Mean), Mb(a.Trace!.Mean), Signed(a.Delta / BytesPerMb, "F2"), SignedPct(a.RelativeDelta), Noise(a.Noise));
        }
        return table;
    }

    private static TextTable ExplainedTable(List<RowDiff> rows, DiffSettings settings)
    {
        var factored = string.Join(" and ", settings.FactoredOutTags.Select(t => t + "\\*"));
        var table = new TextTable($"Explained: Δ with {factored} factored out (remainder = Δ − Δ of those tags; within {Fmt.Pct(settings.Tolerance)} = negligible next to the baseline; thread CPU: the tags' share of samples × the thread's CPU time)",
            ["Serializer", "Operation", "N", "Metric", "Δ ms", "Δ factored out ms", "Share", "Remainder ms", "Remainder %", "Remainder noise", "Verdict"]);
        foreach (var r in rows)
            foreach (var e in r.Explained)
                table.AddRow(r.Serializer, r.Operation, Fmt.Objects(r.Objects), MetricLabel(e.Metric),
                    Signed(e.Delta), Signed(e.FactoredOutDelta), e.FactoredOutShare is { } s ? Fmt.Pct(s == 0 ? 0 : s) : "-",
                    Signed(e.Remainder.Delta), SignedPct(e.RemainderRelative), Noise(e.Remainder.Noise), Verdict(r, e));
        return table;
    }

    /// <summary>
    /// One phrase per explained line. "explained" is the seeds' criterion: the factored-out tags carry most of Δ and
    /// what remains is within noise or within the tolerance. The qualifier says how sure Δ itself is.
    /// </summary>
    private static string Invariant(FormattableString text) => FormattableString.Invariant(text);

    public static string Verdict(RowDiff row, ExplainedDiff e)
    {
        var total = row.Metric(e.Metric);
        var mostly = e.FactoredOutShare >= 0.5;
        if (total.Noise.Significant == false)
        {
            // A total that did not move can hide a shift: the factored-out tags grew and the rest shrank by as much.
            if (e.Remainder.Noise.Significant == true)
                return Invariant($"no significant change in total, but a shift: factored-out tags {e.FactoredOutDelta:+0.00;-0.00} ms, the rest {e.Remainder.Delta:+0.00;-0.00} ms (significant)");
            var withinTolerance = total.RelativeDelta is { } rel && Math.Abs(rel) <= e.Tolerance;
            return withinTolerance ? "no change" : "no significant change" + (mostly ? "; factored-out tags carry most of it" : "");
        }
        var verdict = !mostly ? "not explained by factored-out tags"
            : e.RemainderWithinNoise == true || e.WithinTolerance ? "explained by factored-out tags"
            // The factored-out tags grew by more than Δ: the emitted code they replace ran under other tags (the
            // serializer's own, typically), so the rest shrank. Reflection still accounts for the whole change.
            : e.Remainder.Delta < 0 && total.Delta > 0 ? "explained by factored-out tags (they exceed Δ)"
            : "mostly factored-out tags; remainder significant";
        return total.Noise.Significant is null ? verdict + " (noise n/a)" : verdict;
    }

    private static string MetricLabel(string metric) => metric switch
    {
        RowDiff.DurationMs => "duration",
        RowDiff.CpuMs => "CPU",
        RowDiff.ThreadCpuMs => "thread CPU",
        _ => metric,
    };

    private static TextTable TagTable(RowDiff row)
    {
        var table = new TextTable($"{row.Serializer} {row.Operation}{Fmt.NSuffix(row.Objects)}: stack tags, ms per operation, largest |Δ| first",
            ["Tag", "Base ms", "Trace ms", "Δ ms", "Noise"]);
        foreach (var t in row.Tags.Take(TagsPerRow))
            table.AddRow(t.Name, Fmt.Ms(t.Baseline!.Mean), Fmt.Ms(t.Trace!.Mean), Signed(t.Delta), Noise(t.Noise));
        if (row.Tags.Count > TagsPerRow)
        {
            var rest = row.Tags.Skip(TagsPerRow).ToList();
            table.Notes.Add($"{rest.Count} more tag(s), together {Signed(rest.Sum(t => t.Delta ?? 0))} ms (all in --format csv/json)");
        }
        return table;
    }

    private static TextTable OneSidedTable(List<RowDiff> rows, List<(string Side, string Serializer, string Reason)> unsupported)
    {
        var table = new TextTable("Only in one trace (not compared)", ["Serializer", "Operation", "N", "Only in", "Runs", "Duration ms", "CPU ms", "Note"]);
        foreach (var r in rows)
        {
            var d = r.Metric(RowDiff.DurationMs);
            var c = r.Metric(RowDiff.CpuMs);
            var stats = d.Baseline ?? d.Trace!;
            table.AddRow(r.Serializer, r.Operation, Fmt.Objects(r.Objects), r.Presence == Presence.OnlyInBaseline ? "baseline" : "trace",
                Fmt.Int(stats.Runs), Fmt.Ms(stats.Mean), Fmt.Ms((c.Baseline ?? c.Trace!).Mean), r.Note ?? "");
        }
        foreach (var (side, serializer, reason) in unsupported)
            table.AddRow(serializer, "-", "-", "neither", "0", "-", "-", $"not run in {side}: {reason}");
        return table;
    }

    /// <summary>Serializers a side could not run, with no row on the other side either (else the row's note says it).</summary>
    private static IEnumerable<(string Side, string Serializer, string Reason)> UnsupportedWithoutRows(TraceDiff diff)
    {
        foreach (var (side, info) in new[] { ("baseline", diff.Baseline), ("trace", diff.Trace) })
            foreach (var (serializer, reason) in info.Unsupported.OrderBy(u => u.Key, StringComparer.OrdinalIgnoreCase))
                if (!diff.Rows.Any(r => r.Serializer.Equals(serializer, StringComparison.OrdinalIgnoreCase)))
                    yield return (side, serializer, reason);
    }

    /// <summary>CSV: one line per (row, metric or tag), so a spreadsheet can pivot any way.</summary>
    public static TextTable LongTable(TraceDiff diff)
    {
        var table = new TextTable("diff", ["serializer", "operation", "objects", "presence", "kind", "name", "baselineRuns", "traceRuns", "baseline", "trace", "delta", "relativeDelta", "pValue", "significant", "ciLow", "ciHigh", "note"]);
        foreach (var r in diff.Rows)
        {
            void Add(string kind, MetricDiff m) => table.AddRow(r.Serializer, r.Operation, Fmt.Objects(r.Objects), WireNames.Of(r.Presence), kind, m.Name,
                m.Baseline is null ? "" : Fmt.Int(m.Baseline.Runs), m.Trace is null ? "" : Fmt.Int(m.Trace.Runs),
                Raw(m.Baseline?.Mean), Raw(m.Trace?.Mean), Raw(m.Delta), Raw(m.RelativeDelta), Raw(m.Noise.PValue),
                m.Noise.Significant is { } s ? (s ? "true" : "false") : "", Raw(m.Noise.CiLow), Raw(m.Noise.CiHigh), m.Noise.Reason ?? r.Note ?? "");
            foreach (var m in r.Metrics) Add("metric", m);
            foreach (var t in r.Tags) Add("tag", t);
            foreach (var e in r.Explained) Add("remainder", e.Remainder);
        }
        return table;
    }

    public static JsonObject Json(TraceDiff diff)
    {
        var s = diff.Settings;
        return new JsonObject
        {
            ["schemaVersion"] = SchemaVersion,
            ["method"] = new JsonObject
            {
                ["test"] = "welch-t",
                ["alpha"] = s.Alpha,
                ["confidence"] = 1 - s.Alpha,
                ["tolerance"] = s.Tolerance,
                ["factoredOutTags"] = new JsonArray(s.FactoredOutTags.Select(t => (JsonNode?)t).ToArray()),
                ["runs"] = "measured runs only (warm-up excluded); every metric is a per-operation value (a run's figure divided by its calls)",
            },
            ["baseline"] = Side(diff.Baseline),
            ["trace"] = Side(diff.Trace),
            ["warnings"] = new JsonArray(diff.Warnings.Select(w => (JsonNode?)w).ToArray()),
            ["serializers"] = Serializers(SerializerSets.Of(diff)),
            ["rows"] = new JsonArray(diff.Rows.Select(r => (JsonNode?)Row(r)).ToArray()),
        };
    }

    private static JsonObject Serializers(SerializerSets sets)
    {
        static JsonArray Names(IReadOnlyList<string> names) => new(names.Select(n => (JsonNode?)n).ToArray());
        return new JsonObject
        {
            ["compared"] = Names(sets.Compared),
            ["onlyInBaseline"] = Names(sets.OnlyInBaseline),
            ["onlyInTrace"] = Names(sets.OnlyInTrace),
            ["notRun"] = Names(sets.NotRun),
        };
    }

    private static JsonObject Side(DiffSide side) => new()
    {
        ["path"] = side.Path,
        ["launches"] = new JsonArray(side.Launches.Select(l => (JsonNode?)l).ToArray()),
        ["runtime"] = side.Runtime,
        ["cpuSource"] = side.CpuSourceName,
        ["configuration"] = new JsonArray(side.Configuration.Select(c => (JsonNode?)c).ToArray()),
        ["unsupported"] = new JsonArray(side.Unsupported.OrderBy(u => u.Key, StringComparer.Ordinal)
            .Select(u => (JsonNode?)new JsonObject { ["serializer"] = u.Key, ["reason"] = u.Value }).ToArray()),
        ["warnings"] = new JsonArray(side.Warnings.Select(w => (JsonNode?)w).ToArray()),
    };

    private static JsonObject Row(RowDiff r)
    {
        var row = new JsonObject
        {
            ["serializer"] = r.Serializer,
            ["operation"] = r.Operation,
            ["objects"] = r.Objects,
            ["presence"] = WireNames.Of(r.Presence),
            ["note"] = r.Note,
            ["metrics"] = new JsonObject(r.Metrics.Select(m => KeyValuePair.Create(m.Name, (JsonNode?)Metric(m)))),
            ["tags"] = new JsonArray(r.Tags.Select(t =>
            {
                var node = Metric(t);
                node.Insert(0, "tag", t.Name);
                return (JsonNode?)node;
            }).ToArray()),
        };
        row["explained"] = new JsonObject(r.Explained.Select(e => KeyValuePair.Create(e.Metric, (JsonNode?)new JsonObject
        {
            ["delta"] = Round(e.Delta),
            ["factoredOutDelta"] = Round(e.FactoredOutDelta),
            ["factoredOutShare"] = Round(e.FactoredOutShare),
            ["remainder"] = Round(e.Remainder.Delta),
            ["remainderRelative"] = Round(e.RemainderRelative),
            ["remainderNoise"] = NoiseJson(e.Remainder.Noise),
            ["remainderWithinNoise"] = e.RemainderWithinNoise,
            ["withinTolerance"] = e.WithinTolerance,
            ["verdict"] = Verdict(r, e),
        })));
        return row;
    }

    private static JsonObject Metric(MetricDiff m) => new()
    {
        ["baseline"] = Stats(m.Baseline),
        ["trace"] = Stats(m.Trace),
        ["delta"] = Round(m.Delta),
        ["relativeDelta"] = Round(m.RelativeDelta),
        ["noise"] = NoiseJson(m.Noise),
    };

    private static JsonObject? Stats(SampleStats? s) => s is null ? null : new JsonObject { ["runs"] = s.Runs, ["mean"] = Round(s.Mean), ["stdDev"] = Round(s.StdDev) };

    private static JsonObject NoiseJson(NoiseVerdict n) => new()
    {
        ["significant"] = n.Significant,
        ["pValue"] = Round(n.PValue),
        ["ciLow"] = Round(n.CiLow),
        ["ciHigh"] = Round(n.CiHigh),
        ["degreesOfFreedom"] = Round(n.DegreesOfFreedom),
        ["reason"] = n.Reason,
    };

    private static double? Round(double? v) => v is { } d ? Math.Round(d, 6) : null;

    private static string Describe(DiffSide side) =>
        side.Path + (side.Launches.Count > 1 ? $" ({side.Launches.Count} launches, runs pooled)" : "") +
        (side.Runtime is null && side.Configuration.Count == 0 ? "" : $" ({string.Join("; ", new[] { side.Runtime }.Concat(side.Configuration).OfType<string>())})");

    private static string Noise(NoiseVerdict n) => n.Significant switch
    {
        true => $"sig p{P(n.PValue)}",
        false => $"noise p{P(n.PValue)}",
        null => "n/a",
    };

    private static string P(double? p) => p is not { } v ? "=?" : v < 0.001 ? "<0.001" : "=" + v.ToString("F3", CultureInfo.InvariantCulture);

    private static string Ci(NoiseVerdict n) => n.CiLow is { } lo && n.CiHigh is { } hi ? $"[{Signed(lo)}, {Signed(hi)}]" : "-";

    private static string Signed(double? v, string? format = null)
    {
        if (v is not { } d) return "-";
        var text = format is null ? Fmt.Ms(Math.Abs(d)) : Math.Abs(d).ToString(format, CultureInfo.InvariantCulture);
        return (d < 0 && text.Any(c => c is >= '1' and <= '9') ? "-" : "+") + text;
    }

    private static string SignedPct(double? fraction) => fraction is { } f ? Signed(f * 100, "F0") + "%" : "-";

    private static string Mb(double bytes) => (bytes / BytesPerMb).ToString("F2", CultureInfo.InvariantCulture);

    private static string Raw(double? v) => v is { } d ? d.ToString("R", CultureInfo.InvariantCulture) : "";

}
