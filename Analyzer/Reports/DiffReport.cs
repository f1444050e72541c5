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
    /// <summary>2: "noise" is the verdict on launch means (null with one launch on a side); "runNoise" is the old test on runs.</summary>
    public const int SchemaVersion = 2;

    /// <summary>Stack tags shown per row in text and Markdown; CSV and JSON carry all of them.</summary>
    public const int TagsPerRow = 8;

    private const double BytesPerMb = 1024.0 * 1024.0;

    public static string Render(TraceDiff diff, TableFormat format, ReportTables tables = ReportTables.All) => Exporters.Render(Document(diff, tables), format);

    /// <summary>
    /// The diff for the exporters: the header lines, the tables; CSV is the long table, one line per metric.
    /// <see cref="ReportTables.Compact"/> (the terminal's): a short table per operation and what moved beyond the noise.
    /// </summary>
    public static ReportDocument Document(TraceDiff diff, ReportTables tables = ReportTables.All) => new()
    {
        Kind = ReportKind.Diff,
        Heading = "esp diff",
        Parts = [new LinesPart(tables == ReportTables.Compact ? [.. Header(diff).SelectMany(l => Verdicts.Wrap(l, "  "))] : Header(diff), EscapeMarkdown: false),
            .. tables == ReportTables.Compact ? CompactParts(diff) : Tables(diff).Select(t => new TablePart(t))],
        CsvTables = () => [LongTable(diff)],
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
            "Δ = trace − baseline per operation: each launch's mean over its measured runs (warm-up excluded), then over launches.",
            $"Per operation: ms for times, collections for GCs, MB allocated. Δ % = Δ / baseline. CI = {Fmt.Pct(1 - s.Alpha)} interval of Δ.",
        };
        lines.AddRange(NoiseLegend(diff));
        // Two runtimes (esp record --runtime 8.0,10.0): each side named by its runtime, so Δ reads as "10 minus 8".
        if (diff.Baseline.Runtime is { } before && diff.Trace.Runtime is { } after && before != after)
            lines.Add($"runtimes: baseline = {before}, trace = {after}; Δ = {after} − {before}");
        var sets = SerializerSets.Of(diff);
        if (!sets.Same) lines.Add(SerializersLine(sets));
        lines.AddRange(diff.Warnings.Select(w => "warning: " + w));
        foreach (var (label, side) in new[] { ("baseline", diff.Baseline), ("trace", diff.Trace) })
            if (side.Warnings.Count > 0)
                lines.Add(side.Launches.Count == 1
                    ? $"{label}: {side.Warnings.Count} analyzer warning(s); `esp analyze {side.Path}` lists them"
                    : $"{label}: {side.Warnings.Count} analyzer warning(s) over {side.Launches.Count} launches; `esp analyze LAUNCH` lists each one's");
        return lines;
    }

    /// <summary>
    /// What the Noise columns mean, in lines of at most 120 columns. The launch is the unit: with two or more launches
    /// per side, Welch's test on their means; with one launch on a side nothing is judged significant, and the column
    /// says only how Δ compares with the runs' spread and with the launch-to-launch noise measured on the build VM.
    /// </summary>
    private static IEnumerable<string> NoiseLegend(TraceDiff diff)
    {
        var s = diff.Settings;
        var alpha = s.Alpha.ToString(CultureInfo.InvariantCulture);
        if (!OneLaunch(diff))
        {
            yield return $"Noise: Welch's t-test on the launches' means ({diff.Baseline.Launches.Count} launch(es) in the baseline, {diff.Trace.Launches.Count} in the trace), α = {alpha}.";
            yield return "The launch is the unit: runs inside one process are not independent samples.";
            yield return "\"sig\" = significant; \"noise\" = within launch-to-launch variance; \"n/a\" = fewer than 2 runs on a side.";
            yield return "A row from one launch of a side is not judged: its Noise sets Δ against the runs' spread and the launch noise.";
            yield break;
        }
        var side = diff.Baseline.Launches.Count == 1 && diff.Trace.Launches.Count == 1 ? "each side" : diff.Baseline.Launches.Count == 1 ? "the baseline side" : "the trace side";
        yield return $"one launch on {side}: differences under {Fmt.Pct(s.LaunchNoise)} in CPU ({Fmt.Pct(s.LaunchNoiseDuration)} in duration) can be launch noise; none is significant.";
        yield return "(Runs inside one process are not independent samples of a launch: docs/diff.md#how-noise-is-judged.)";
        yield return $"Noise: \"within runs\" = Δ inside the runs' spread (Welch's t-test on runs, α = {alpha});";
        yield return "\"launch noise?\" = beyond the runs' spread, under the launch noise; \"> launch noise\" = beyond both;";
        yield return $"\"beyond runs\" = beyond the runs' spread, no baseline for a %; \"n/a\" = {NoiseVerdict.NotEnoughRuns}.";
        yield return "To test a difference, record several launches (esp record --launches 3) and diff B1 B2 B3 vs T1 T2 T3.";
    }

    /// <summary>True when a side has a single launch: then no verdict is a test between configurations.</summary>
    public static bool OneLaunch(TraceDiff diff) => diff.Baseline.Launches.Count == 1 || diff.Trace.Launches.Count == 1;

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
            yield return CpuTable(both, diff.Baseline, diff.Trace, diff.Settings);
            yield return GcTable(both, diff.Settings);
            if (diff.Settings.Columns.Any(c => c.Diff)) yield return ColumnsTable(both, diff.Settings);
            yield return ExplainedTable(both, diff.Settings);
            if (!OneLaunch(diff)) yield return TagChangesTable(both, diff.Settings);
            foreach (var row in both) yield return TagTable(row, diff.Settings);
        }
        foreach (var table in OtherTables(diff, compact: false)) yield return table;
    }

    /// <summary>The rows on one side only, or the note that neither side has runs: in every view.</summary>
    private static IEnumerable<TextTable> OtherTables(TraceDiff diff, bool compact)
    {
        var oneSided = diff.Rows.Where(r => r.Presence != Presence.Both).ToList();
        var unmatchedUnsupported = UnsupportedWithoutRows(diff).ToList();
        if (oneSided.Count > 0 || unmatchedUnsupported.Count > 0) yield return OneSidedTable(oneSided, unmatchedUnsupported, compact);
        if (diff.Rows.Count == 0)
        {
            var empty = new TextTable("no runs in either trace", ["Note"]);
            empty.AddRow("neither trace holds measured runs (check --serializers and the analyzer warnings)");
            yield return empty;
        }
    }

    /// <summary>The terminal's diff: per operation a table within 120 columns, then the rows beyond the noise, each with its cause.</summary>
    private static IEnumerable<ReportPart> CompactParts(TraceDiff diff)
    {
        var both = diff.Rows.Where(r => r.Presence == Presence.Both).ToList();
        foreach (var op in both.GroupBy(r => r.Operation))
            yield return new TablePart(CompactTable(op.Key, [.. op], diff));
        if (both.Count > 0) yield return new LinesPart(Moved(diff, both), EscapeMarkdown: true);
        foreach (var table in OtherTables(diff, compact: true)) yield return new TablePart(table);
    }

    private static TextTable CompactTable(string operation, List<RowDiff> rows, TraceDiff diff)
    {
        var cpu = diff.Baseline.CpuSource?.IsOnCpu() == true && diff.Trace.CpuSource?.IsOnCpu() == true ? "on-CPU, kernel samples" : "see --tables all";
        var table = new TextTable($"{operation}, baseline → trace (ms per operation; Δ % = Δ / baseline; CPU: {cpu})",
            ["Serializer", "N", "Base ms", "Trace ms", "Δ %", "Noise", "CPU Δ %", "CPU noise", "Alloc Δ %"]);
        foreach (var r in rows)
        {
            var d = r.Metric(RowDiff.DurationMs);
            var c = r.Metric(RowDiff.CpuMs);
            var a = r.Metric(RowDiff.AllocatedBytes);
            table.AddRow(r.Serializer, Fmt.Objects(r.Objects), Fmt.Ms(d.Baseline!.Mean), Fmt.Ms(d.Trace!.Mean), SignedPct(d.RelativeDelta), Noise(d, diff.Settings),
                SignedPct(c.RelativeDelta), c.Delta is null ? "-" : Noise(c, diff.Settings), SignedPct(a.RelativeDelta));
        }
        return table;
    }

    /// <summary>
    /// The rows whose duration or CPU moved beyond the noise (on launch means; with one launch a side, beyond the runs'
    /// spread and the launch noise), largest CPU change first: each with the explained verdict and the tag that moved most.
    /// </summary>
    private static IReadOnlyList<string> Moved(TraceDiff diff, List<RowDiff> rows)
    {
        var s = diff.Settings;
        var moved = rows.Where(r => Beyond(r.Metric(RowDiff.DurationMs), s) || Beyond(r.Metric(RowDiff.CpuMs), s))
            .OrderByDescending(r => Math.Abs(r.Metric(RowDiff.CpuMs).RelativeDelta ?? r.Metric(RowDiff.DurationMs).RelativeDelta ?? 0)).ToList();
        var noise = OneLaunch(diff) ? "the launch noise" : "the launch-to-launch noise";
        var factored = FactoredOut(s) + " tags";
        var lines = new List<string>();
        if (moved.Count == 0) lines.Add($"Nothing moved beyond {noise}.");
        else
        {
            lines.Add($"Beyond {noise}, largest CPU Δ first ({(OneLaunch(diff) ? "one launch a side: a lead, not a result" : "significant on the launches' means")}):");
            foreach (var r in moved.Take(MovedLines))
            {
                var d = r.Metric(RowDiff.DurationMs);
                var c = r.Metric(RowDiff.CpuMs);
                var parts = new List<string> { $"CPU {SignedPct(c.RelativeDelta)}, duration {SignedPct(d.RelativeDelta)}" };
                if (r.Tags.FirstOrDefault() is { Delta: { } tagDelta } tag) parts.Add($"most moved: {tag.Name} {Signed(tagDelta)} ms");
                if (r.Explained.FirstOrDefault(e => e.Metric == RowDiff.CpuMs) is { } e)
                    parts.Add(Verdict(r, e, factored, oneLaunchNote: false));
                lines.AddRange(Verdicts.Wrap($"{r.Serializer} {r.Operation}{Fmt.NSuffix(r.Objects)}: {string.Join("; ", parts)}", "  ", PlainText.Width - 2).Select(l => "  " + l));
            }
            if (moved.Count > MovedLines) lines.Add($"  and {moved.Count - MovedLines} more");
        }
        lines.Add("Every table (thread CPU, GCs, the explained view, stack tags per row): --tables all; data: --format csv or json.");
        return lines;
    }

    /// <summary>Rows listed under "Beyond the noise" in the compact view.</summary>
    private const int MovedLines = 10;

    private static TextTable DurationTable(List<RowDiff> rows, DiffSettings settings)
    {
        var table = new TextTable($"Duration, ms per operation (Launches, Runs = launches and measured runs with the row, baseline/trace; Δ % = Δ / Base ms; Δ CI = {Fmt.Pct(1 - settings.Alpha)} confidence interval of Δ ms)",
            ["Serializer", "Operation", "N", "Launches", "Runs", "Base ms", "Trace ms", "Δ ms", "Δ %", "Δ CI", "Noise"]);
        foreach (var r in rows)
        {
            var d = r.Metric(RowDiff.DurationMs);
            table.AddRow(r.Serializer, r.Operation, Fmt.Objects(r.Objects), $"{d.BaselineLaunches?.Runs ?? 1}/{d.TraceLaunches?.Runs ?? 1}", $"{d.Baseline!.Runs}/{d.Trace!.Runs}",
                Fmt.Ms(d.Baseline.Mean), Fmt.Ms(d.Trace.Mean), Signed(d.Delta), SignedPct(d.RelativeDelta), Ci(d), Noise(d, settings));
        }
        return table;
    }

    private static TextTable CpuTable(List<RowDiff> rows, DiffSide baseline, DiffSide trace, DiffSettings settings)
    {
        var table = new TextTable($"CPU, ms per operation (CPU = {CpuMeaning(baseline, trace)}, what the tags split; thread = the worker thread's CPU clock, measured in-process; Δ % = Δ / the baseline's figure)",
            ["Serializer", "Operation", "N", "Base CPU", "Trace CPU", "Δ CPU", "Δ CPU %", "CPU noise", "Base thread", "Trace thread", "Δ thread", "Δ thread %", "Thread noise"]);
        foreach (var r in rows)
        {
            var c = r.Metric(RowDiff.CpuMs);
            var t = r.TryMetric(RowDiff.ThreadCpuMs);
            table.AddRow(r.Serializer, r.Operation, Fmt.Objects(r.Objects),
                MsOrMissing(c.Baseline), MsOrMissing(c.Trace), Signed(c.Delta), SignedPct(c.RelativeDelta), Noise(c, settings),
                t is null ? "-" : Fmt.Ms(t.Baseline!.Mean), t is null ? "-" : Fmt.Ms(t.Trace!.Mean), Signed(t?.Delta), SignedPct(t?.RelativeDelta), t is null ? "-" : Noise(t, settings));
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

    private static TextTable GcTable(List<RowDiff> rows, DiffSettings settings)
    {
        var table = new TextTable("GC and allocations per operation (GCs = gen0+gen1+gen2 collections inside the runs, per operation; pause ms per operation; MB allocated per operation; Δ alloc % = Δ MB / Base MB)",
            ["Serializer", "Operation", "N", "Base GCs", "Trace GCs", "Δ GCs", "GC noise", "Base pause ms", "Trace pause ms", "Δ pause ms", "Pause noise", "Base MB", "Trace MB", "Δ MB", "Δ alloc %", "Alloc noise"]);
        foreach (var r in rows)
        {
            var g = r.Metric(RowDiff.GcCount);
            var p = r.Metric(RowDiff.GcPauseMs);
            var a = r.Metric(RowDiff.AllocatedBytes);
            table.AddRow(r.Serializer, r.Operation, Fmt.Objects(r.Objects),
                Fmt.Num(g.Baseline!.Mean), Fmt.Num(g.Trace!.Mean), Signed(g.Delta, 1), Noise(g, settings),
                Fmt.Ms(p.Baseline!.Mean), Fmt.Ms(p.Trace!.Mean), Signed(p.Delta), Noise(p, settings),
                Mb(a.Baseline!.Mean), Mb(a.Trace!.Mean), Signed(a.Delta / BytesPerMb, 2), SignedPct(a.RelativeDelta), Noise(a, settings));
        }
        return table;
    }

    /// <summary>The figures of <see cref="DiffSettings.Columns"/> with a diff metric, a line each, in their own cells (<see cref="CaseColumn.Cell"/>).</summary>
    private static TextTable ColumnsTable(List<RowDiff> rows, DiffSettings settings)
    {
        var table = new TextTable("Other figures per operation (Δ % = Δ / Base)", ["Serializer", "Operation", "N", "Figure", "Base", "Trace", "Δ", "Δ %", "Noise"]);
        foreach (var r in rows)
            foreach (var c in settings.Columns.Where(c => c.Diff))
            {
                var m = r.Metric(c.Name);
                string Cell(double? v) => v is { } d ? c.Cell(d) : "-";
                table.AddRow(r.Serializer, r.Operation, Fmt.Objects(r.Objects), c.Header, Cell(m.Baseline?.Mean), Cell(m.Trace?.Mean),
                    m.Delta is { } delta ? Fmt.Signed(delta, c.Cell(Math.Abs(delta))) : "-", SignedPct(m.RelativeDelta), Noise(m, settings));
            }
        return table;
    }

    private static TextTable ExplainedTable(List<RowDiff> rows, DiffSettings settings)
    {
        var table = new TextTable($"Explained: Δ with {FactoredOut(settings)} factored out, ms per operation (Share = Δ factored out / Δ, \"-\" where Δ is within noise or within {Fmt.Pct(settings.Tolerance)} of the baseline: a ratio over a near-zero Δ means nothing; " +
            $"Remainder = Δ − Δ factored out; Remainder % = remainder / the baseline's whole metric, within {Fmt.Pct(settings.Tolerance)} = negligible; thread CPU: the tags' share of samples × the thread's CPU time)",
            ["Serializer", "Operation", "N", "Metric", "Δ ms", "Δ factored out ms", "Share", "Remainder ms", "Remainder %", "Remainder noise", "Verdict"]);
        foreach (var r in rows)
            foreach (var e in r.Explained)
                table.AddRow(r.Serializer, r.Operation, Fmt.Objects(r.Objects), MetricLabel(e.Metric),
                    Signed(e.Delta), Signed(e.FactoredOutDelta), e.FactoredOutShare is { } s ? Fmt.Pct(s) : "-",
                    Signed(e.Remainder.Delta), SignedPct(e.RemainderRelative), Noise(e.Remainder, settings), Verdict(r, e));
        return table;
    }

    /// <summary>The factored-out tags as the reports name them: "Reflection* and Activator*".</summary>
    private static string FactoredOut(DiffSettings settings) => string.Join(" and ", settings.FactoredOutTags.Select(t => t + "*"));

    /// <summary>
    /// One phrase per explained line. "explained" is the seeds' criterion: the factored-out tags carry most of Δ and
    /// what remains is within noise or within the tolerance. The qualifier says how sure Δ itself is.
    /// </summary>
    private static string Invariant(FormattableString text) => FormattableString.Invariant(text);

    public static string Verdict(RowDiff row, ExplainedDiff e) => Verdict(row, e, "factored-out tags", oneLaunchNote: true);

    /// <param name="tags">What the factored-out tags are called.</param>
    /// <param name="oneLaunchNote">Whether a one-launch verdict says it was not judged (the compact view's heading says it once).</param>
    private static string Verdict(RowDiff row, ExplainedDiff e, string tags, bool oneLaunchNote)
    {
        var total = row.Metric(e.Metric);
        // One launch on a side: the split of the Δ these two processes showed, set against their runs' spread only.
        if (total.OneLaunch)
            return (total.RunNoise.Significant == false && e.Remainder.RunNoise.Significant != true
                ? "within the runs' spread"
                : Judge(total, total.RunNoise, e.Remainder.RunNoise, e, within: "the runs' spread", beyond: "beyond the runs' spread", tags))
                + (oneLaunchNote ? " (1 launch per side: not judged)" : "");
        return Judge(total, total.Noise, e.Remainder.Noise, e, within: "noise", beyond: "significant", tags);
    }

    private static string Judge(MetricDiff total, NoiseVerdict totalNoise, NoiseVerdict remainderNoise, ExplainedDiff e, string within, string beyond, string tags)
    {
        var mostly = e.FactoredOutShare >= 0.5;
        var change = beyond == "significant" ? "significant change" : "change beyond " + within;
        if (totalNoise.Significant == false)
        {
            // A total that did not move can hide a shift: the factored-out tags grew and the rest shrank by as much.
            if (remainderNoise.Significant == true)
                return Invariant($"no {change} in total, but a shift: {tags} {Fmt.Signed(e.FactoredOutDelta, 2)} ms, the rest {(e.Remainder.Delta is { } rest ? Fmt.Signed(rest, 2) : "-")} ms ({beyond})");
            var withinTolerance = total.RelativeDelta is { } rel && Math.Abs(rel) <= e.Tolerance;
            return withinTolerance ? "no change" : $"no {change}";
        }
        var verdict = !mostly ? $"not explained by {tags}"
            : remainderNoise.Significant == false || e.WithinTolerance ? $"explained by {tags}"
            // The factored-out tags grew by more than Δ: the emitted code they replace ran under other tags (the
            // serializer's own, typically), so the rest shrank. Reflection still accounts for the whole change.
            : e.Remainder.Delta < 0 && total.Delta > 0 ? $"explained by {tags} (they exceed Δ)"
            : $"mostly {tags}; remainder {beyond}";
        return totalNoise.Significant is null ? verdict + " (noise n/a)" : verdict;
    }

    private static string MetricLabel(string metric) => metric switch
    {
        RowDiff.DurationMs => "duration",
        RowDiff.CpuMs => "CPU",
        RowDiff.ThreadCpuMs => "thread CPU",
        _ => metric,
    };

    /// <summary>
    /// Every stack tag whose change is significant on launch means, with its row's total beside it: a shift between
    /// tags (reflection replacing emitted code) is a finding even when the total did not move.
    /// </summary>
    private static TextTable TagChangesTable(List<RowDiff> rows, DiffSettings settings)
    {
        var table = new TextTable("Stack tags that changed: significant on launch means, CPU ms per operation sampled under the tag, with the row's CPU total (the tag can move while the total does not)",
            ["Serializer", "Operation", "N", "Tag", "Base ms", "Trace ms", "Δ ms", "Noise", "Total Δ CPU ms", "Total noise"]);
        foreach (var r in rows)
        {
            var cpu = r.Metric(RowDiff.CpuMs);
            foreach (var t in r.Tags.Where(t => t.Noise.Significant == true))
                table.AddRow(r.Serializer, r.Operation, Fmt.Objects(r.Objects), t.Name, MsOrMissing(t.Baseline), MsOrMissing(t.Trace), Signed(t.Delta), Noise(t, settings),
                    Signed(cpu.Delta), Noise(cpu, settings));
        }
        if (table.Rows.Count == 0) table.Notes.Add("none: no stack tag changed beyond launch-to-launch noise");
        return table;
    }

    private static TextTable TagTable(RowDiff row, DiffSettings settings)
    {
        var table = new TextTable($"{row.Serializer} {row.Operation}{Fmt.NSuffix(row.Objects)}: stack tags, CPU ms per operation sampled under the tag, largest |Δ| first",
            ["Tag", "Base ms", "Trace ms", "Δ ms", "Noise"]);
        foreach (var t in row.Tags.Take(TagsPerRow))
            table.AddRow(t.Name, MsOrMissing(t.Baseline), MsOrMissing(t.Trace), Signed(t.Delta), Noise(t, settings));
        if (row.Tags.Count > TagsPerRow)
        {
            var rest = row.Tags.Skip(TagsPerRow).ToList();
            table.Notes.Add($"{rest.Count} more tag(s), together {Signed(rest.Sum(t => t.Delta ?? 0))} ms (all in --format csv/json)");
        }
        return table;
    }

    /// <param name="compact">The notes under the table, wrapped within 120 columns, not in a column of their own.</param>
    private static TextTable OneSidedTable(List<RowDiff> rows, List<(string Side, string Serializer, string Reason)> unsupported, bool compact)
    {
        var table = new TextTable("Only in one trace (not compared; Duration and CPU in ms per operation, mean of the launches' means)",
            ["Serializer", "Operation", "N", "Only in", "Runs", "Duration ms", "CPU ms", .. compact ? Array.Empty<string>() : ["Note"]]);
        void Add(string[] cells, string? note, string noteHead)
        {
            table.AddRow(compact ? cells : [.. cells, note ?? ""]);
            if (compact && !string.IsNullOrEmpty(note)) table.Notes.AddRange(Verdicts.Wrap($"{noteHead}: {note}", "  ", PlainText.Width - 2));
        }
        foreach (var r in rows)
        {
            var d = r.Metric(RowDiff.DurationMs);
            var c = r.Metric(RowDiff.CpuMs);
            var stats = d.Baseline ?? d.Trace!;
            Add([r.Serializer, r.Operation, Fmt.Objects(r.Objects), r.Presence == Presence.OnlyInBaseline ? "baseline" : "trace",
                Fmt.Int(stats.Runs), Fmt.Ms(stats.Mean), MsOrMissing(c.Baseline ?? c.Trace)], r.Note, $"{r.Serializer} {r.Operation}{Fmt.NSuffix(r.Objects)}");
        }
        foreach (var (side, serializer, reason) in unsupported)
            Add([serializer, "-", "-", "neither", "0", "-", "-"], $"not run in {side}: {reason}", serializer);
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
        var table = new TextTable("diff", ["serializer", "operation", "objects", "presence", "kind", "name", "baselineRuns", "traceRuns", "baseline", "trace", "delta", "relativeDelta", "pValue", "significant", "ciLow", "ciHigh", "note",
            "baselineLaunches", "traceLaunches", "runsPValue", "runsSignificant"]);
        foreach (var r in diff.Rows)
        {
            static string Bool(bool? b) => b is { } v ? (v ? "true" : "false") : "";
            void Add(string kind, MetricDiff m) => table.AddRow(r.Serializer, r.Operation, Fmt.Objects(r.Objects), WireNames.Of(r.Presence), kind, m.Name,
                m.Baseline is null ? "" : Fmt.Int(m.Baseline.Runs), m.Trace is null ? "" : Fmt.Int(m.Trace.Runs),
                Raw(m.Baseline?.Mean), Raw(m.Trace?.Mean), Raw(m.Delta), Raw(m.RelativeDelta), Raw(m.Noise.PValue),
                Bool(m.Noise.Significant), Raw(m.Noise.CiLow), Raw(m.Noise.CiHigh), m.Noise.Reason ?? r.Note ?? "",
                m.BaselineLaunches is null ? "" : Fmt.Int(m.BaselineLaunches.Runs), m.TraceLaunches is null ? "" : Fmt.Int(m.TraceLaunches.Runs),
                Raw(m.RunNoise.PValue), Bool(m.RunNoise.Significant));
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
                ["unit"] = OneLaunch(diff) ? "none: one launch on a side, nothing judged (runNoise: Welch on runs)" : "launch: Welch on the launches' means",
                ["launchNoise"] = s.LaunchNoise,
                ["launchNoiseDuration"] = s.LaunchNoiseDuration,
                ["alpha"] = s.Alpha,
                ["confidence"] = 1 - s.Alpha,
                ["tolerance"] = s.Tolerance,
                ["factoredOutTags"] = new JsonArray(s.FactoredOutTags.Select(t => (JsonNode?)t).ToArray()),
                ["runs"] = "measured runs only (warm-up excluded); every metric is a per-operation value (a run's figure divided by its calls); mean = the mean of the launches' means",
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
            ["noShareReason"] = e.NoShareReason,
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
        ["launches"] = new JsonObject { ["baseline"] = Stats(m.BaselineLaunches), ["trace"] = Stats(m.TraceLaunches) },
        ["runNoise"] = NoiseJson(m.RunNoise),
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
        side.Path + (side.Launches.Count > 1 ? $" ({side.Launches.Count} launches, each one sample)" : "") +
        (side.Runtime is null && side.Configuration.Count == 0 ? "" : $" ({string.Join("; ", new[] { side.Runtime }.Concat(side.Configuration).OfType<string>())})");

    /// <summary>
    /// The Noise column: the verdict on launch means; with one launch on a side, how Δ compares with the runs' spread
    /// and with the measured launch-to-launch noise, never "sig" (see <see cref="NoiseLegend"/>).
    /// </summary>
    public static string Noise(MetricDiff m, DiffSettings settings)
    {
        if (!m.OneLaunch) return Noise(m.Noise);
        if (m.RunNoise.Significant is not { } beyondRuns) return "n/a";
        if (!beyondRuns) return "within runs";
        return m.RelativeDelta is null ? "beyond runs" : Beyond(m, settings) ? "> launch noise" : "launch noise?";
    }

    /// <summary>Significant on launch means; with one launch a side, beyond both the runs' spread and the launch noise.</summary>
    private static bool Beyond(MetricDiff m, DiffSettings settings) => m.OneLaunch
        ? m.RunNoise.Significant == true && m.RelativeDelta is { } rel && Math.Abs(rel) > settings.LaunchNoiseOf(m.Name)
        : m.Noise.Significant == true;

    private static string Noise(NoiseVerdict n) => n.Significant switch
    {
        true => $"sig p{P(n.PValue)}",
        false => $"noise p{P(n.PValue)}",
        null => "n/a",
    };

    private static string P(double? p) => p is not { } v ? "=?" : v < 0.001 ? "<0.001" : "=" + v.ToString("F3", CultureInfo.InvariantCulture);

    /// <summary>The interval of the launch means; with one launch on a side, the runs' (what the figure can claim).</summary>
    private static string Ci(MetricDiff m)
    {
        var n = m.OneLaunch ? m.RunNoise : m.Noise;
        return n.CiLow is { } lo && n.CiHigh is { } hi ? $"[{Signed(lo)}, {Signed(hi)}]" : "-";
    }

    /// <summary>A Δ in ms (<see cref="Fmt.Ms"/>), or with <paramref name="decimals"/>; "-" when there is none.</summary>
    private static string Signed(double? v, int? decimals = null) =>
        v is not { } d ? "-" : decimals is { } n ? Fmt.Signed(d, n) : Fmt.Signed(d, Fmt.Ms(Math.Abs(d)));

    /// <summary>A side's mean, or - for a side without the figure (no CPU source covered its runs).</summary>
    private static string MsOrMissing(SampleStats? side) => side is null ? "-" : Fmt.Ms(side.Mean);

    private static string SignedPct(double? fraction) => fraction is { } f ? Fmt.SignedPercent(f, decimals: 0) : "-";

    private static string Mb(double bytes) => (bytes / BytesPerMb).ToString("F2", CultureInfo.InvariantCulture);

    private static string Raw(double? v) => v is { } d ? d.ToString("R", CultureInfo.InvariantCulture) : "";

}
