using System.Text.Json;
using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.CallTrees;
using EtwSerializerProfiler.Analyzer.Export;
using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports.Html;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports;

/// <summary>An analysis as a report: its tables, notes and findings, and the JSON contract (docs/analyzer.md).</summary>
public static class AnalysisReport
{
    public const int SchemaVersion = 1;

    public static string Render(TraceAnalysis analysis, TableFormat format, int top = 0) => Exporters.Render(Document(analysis, top), format);

    /// <summary>
    /// The analysis for the exporters: per-operation tables (without runs: the whole trace, thread by thread), the
    /// stack tag groups (always in Markdown; on the terminal with a kernel session, what it adds most), the kernel
    /// session's tables, the top methods, the trace notes and the findings; CSV is one line per run.
    /// </summary>
    /// <param name="stacks">The measured runs' stacks from the charge's ledger, for --html and --speedscope.</param>
    /// <param name="tables">Which tables: <see cref="ReportTables.Compact"/> (the verdicts that matter most, one short table per operation, a few notes, a line per finding kind: a terminal's, every line within 120 columns) or all of them.</param>
    public static ReportDocument Document(TraceAnalysis analysis, int top = 0, RunStacks? stacks = null, ReportTables tables = ReportTables.All)
    {
        var wholeTrace = analysis.Runs.Count == 0;
        var onCpu = analysis.Trace.OnCpu;
        var parts = new List<ReportPart>();
        var verdicts = Verdicts.Of(analysis);
        var warmups = analysis.Runs.Count(r => r.IsWarmup);
        if (tables == ReportTables.Compact && !wholeTrace)
        {
            parts.Add(Verdicts.CompactPart(verdicts, analysis.Findings, warmups));
            parts.AddRange(CompactTables(analysis, verdicts).Select(t => new TablePart(t)));
            if (top > 0) parts.AddRange(HotMethodReport.Tables(analysis, top, PlainText.Width).Select(t => new TablePart(t)));
            parts.Add(new LinesPart(CompactNotes(analysis), EscapeMarkdown: true));
            parts.Add(FindingsReport.CompactPart(analysis.Findings));
            return Finish(analysis, top, stacks, parts);
        }
        if (!wholeTrace) parts.Add(Verdicts.Part(verdicts, warmups, width: 0)); // "in full": no verdict cut to the terminal's width
        parts.AddRange(OperationTables(analysis).Select(t => new TablePart(t)));
        if (wholeTrace) parts.AddRange(WholeTraceTables.Tables(analysis).Select(t => new TablePart(t)));
        parts.AddRange(StackTagGroups.Tables(analysis.Cases, onCpu).Select(t => new TablePart(t, Detail: !onCpu)));
        parts.AddRange(KernelTables.SourceTables(analysis).Select(t => new TablePart(t)));
        if (top > 0) parts.AddRange(HotMethodTables(analysis, top).Select(t => new TablePart(t)));
        if (top > 0 && wholeTrace) parts.AddRange(WholeTraceTables.HotMethods(analysis, top).Select(t => new TablePart(t)));
        parts.Add(new LinesPart(TraceNotes(analysis), EscapeMarkdown: true));
        parts.Add(FindingsReport.Part(analysis.Findings));
        return Finish(analysis, top, stacks, parts);
    }

    private static ReportDocument Finish(TraceAnalysis analysis, int top, RunStacks? stacks, List<ReportPart> parts)
    {
        var wholeTrace = analysis.Runs.Count == 0;
        return new ReportDocument
        {
            Kind = ReportKind.Analysis,
            Heading = Path.GetFileName(analysis.Trace.Path.TrimEnd('/', '\\')),
            Parts = parts,
            // With --top the hot methods follow the runs as a second table (docs/analyzer.md, "How to read hot methods").
            CsvTables = () => [wholeTrace ? WholeTraceTables.Tables(analysis).First() : RunsTable(analysis), .. top > 0 && analysis.HotMethods.Count > 0 ? [HotMethodReport.Csv(analysis, top)] : Array.Empty<TextTable>()],
            Json = () => Json(analysis, top),
            Html = path => AnalysisHtmlReport.Render(analysis, stacks ?? throw new InvalidOperationException("--html needs the measured runs' stacks"), path),
            Stacks = stacks,
            Analysis = analysis,
        };
    }

    public static IEnumerable<TextTable> OperationTables(TraceAnalysis analysis)
    {
        var summaries = analysis.Cases;
        var offCpu = summaries.Any(s => s.OffCpuMs is not null);
        var others = summaries.Any(s => s.OtherThreadsCpuMs is not null);
        var tiers = summaries.Any(s => s.UnoptimizedShare is not null);
        var ops = summaries.Any(s => s.Operations > 1);
        var costs = analysis.TracingCost;
        var cost = costs.Count > 0;
        foreach (var op in summaries.GroupBy(s => s.Operation))
        {
            string[] columns = ["Serializer", "N", "Runs", .. (ops ? new[] { "Ops" } : []), "Mean ms", "CV", "Rank", "Min ms", "Size KB", "CPU ms", .. (offCpu ? new[] { "Off-CPU ms" } : []),
                .. (others ? new[] { "Other threads ms" } : []),
                "Gen0", "Gen1", "Gen2", "GC pause ms", "Alloc MB", "Reflection", "Activator", .. analysis.Columns.Select(c => c.Header), .. (tiers ? new[] { "Unopt." } : []),
                .. (cost ? new[] { "Tracing cost" } : [])];
            var crew = op.Any(s => s.CallingThreads > 1);
            var table = new TextTable($"{op.Key}: per serializer{OnRuntime(analysis)} ({(ops ? "per operation, " : "")}mean of measured runs; CPU = {CpuMeaning(analysis.Trace, crew)}; Reflection, Activator = share of that CPU outside GC)", columns);
            var ranks = op.GroupBy(s => s.Objects).SelectMany(n => n.Zip(RankRule.Rank([.. n.Select(s => (s.MinDurationMs, s.MaxDurationMs, s.Runs, RankRule.IsFailedRoundTrip(s.RoundTrip)))])))
                .ToDictionary(x => x.First, x => x.Second);
            foreach (var s in op)
                table.AddRow([s.Serializer, s.Objects == 0 && analysis.Trace.InferredNames is not null ? "?" : Fmt.Objects(s.Objects), Fmt.Int(s.Runs), .. (ops ? new[] { Fmt.Num(s.Operations, "F0") } : []),
                    s.Runs == 0 ? "-" : Fmt.Ms(s.MeanDurationMs), s.DurationCv is { } cv ? Fmt.Pct(cv) : "-", ranks[s], s.Runs == 0 ? "-" : Fmt.Ms(s.MinDurationMs),
                    s.SizeBytes is { } size ? Fmt.Num(size / 1024.0) : "-", s.CpuKnown ? Fmt.Ms(s.CpuMs) : "-", .. (offCpu ? new[] { s.OffCpuMs is { } off ? Fmt.Ms(off) : "-" } : []),
                    .. (others ? new[] { OtherThreadsCell(s) } : []),
                    Fmt.Num(s.Gen0), Fmt.Num(s.Gen1), Fmt.Num(s.Gen2), Fmt.Ms(s.GcPauseMs), Fmt.Mb((long)s.AllocatedBytes),
                    Fmt.Pct(s.ReflectionShare), Fmt.Pct(s.ActivatorShare), .. analysis.Columns.Select(c => c.OfCase(s.Measured) is { } v ? c.Cell(v) : "-"),
                    .. (tiers ? new[] { s.UnoptimizedShare is { } u ? Fmt.Pct(u) : "-" } : []),
                    .. (cost ? new[] { costs.GetValueOrDefault((s.Serializer, s.Operation, s.Objects)) is { } c ? c.Describe() + (c.Cpu is { } cpu ? $"; CPU {cpu.Describe()}" : "") + TracerThreads(s) : "-" } : [])]);
            foreach (var s in op.Where(s => ranks[s] == RankRule.Unranked))
                table.Notes.Add($"Rank {RankRule.Unranked}: {s.Serializer} N={Fmt.Int(s.Objects)} did not give the data back ({s.RoundTrip}), so its time is not a result and it is not ranked");
            if (others && op.Any(s => s.OtherThreadsCpuMs is not null))
                table.Notes.Add("Other threads ms: CPU per call of the process's other threads inside the windows (kernel session), largest role first: background GC, JIT (tiering), finalizer, tracer (EventPipe's threads), other; CPU ms leaves it out");
            if (cost) table.Notes.Add("Tracing cost: how much slower the case ran traced than untraced, in the same process after its measured runs (esp record --tracing-cost), with its 95% interval, by the Stopwatch and by the thread CPU clock (CPU; it leaves out waiting for a CPU: read it on a busy machine); the times above include it");
            if (ConcurrentRunsNote.Of(op) is { } concurrent) table.Notes.Add(concurrent);
            if (ranks.Values.Any(r => r.EndsWith('~'))) table.Notes.Add("Rank ~: the row's fastest and slowest measured runs overlap a neighbour's, so their order could flip on another launch (pool launches with esp diff B1 B2 vs T1 T2)");
            yield return table;
        }
    }

    /// <summary>
    /// The terminal's table per operation: a row per serializer and N with the time, its rank and ratio to the fastest,
    /// the CPU, allocations, GC pause and exceptions per call, what tracing cost it, and the verdict's biggest cause
    /// other than the serializer's own code, cut to what is left of 120 columns. The notes follow the last table.
    /// </summary>
    internal static IReadOnlyList<TextTable> CompactTables(TraceAnalysis analysis, IReadOnlyList<Verdict> verdicts)
    {
        var summaries = analysis.Cases;
        var byCase = verdicts.ToDictionary(v => (v.Case.Serializer, v.Case.Operation, v.Case.Objects));
        var costs = analysis.TracingCost;
        var cost = costs.Count > 0;
        var tables = new List<TextTable>();
        var flips = false;
        foreach (var op in summaries.GroupBy(s => s.Operation))
        {
            var table = new TextTable($"{op.Key}: per serializer and N{OnRuntime(analysis)} (per operation; CPU: {(analysis.Trace.OnCpu ? "on-CPU, kernel samples" : "managed time from EventPipe samples")})",
                ["Serializer", "N", "Mean ms", "Rank", "x fastest", "CPU ms", "Alloc MB", "GC ms", "Exc.", .. (cost ? new[] { "Tracing" } : []), "Top other cause"]);
            var ranks = op.GroupBy(s => s.Objects).SelectMany(n => n.Zip(RankRule.Rank([.. n.Select(s => (s.MinDurationMs, s.MaxDurationMs, s.Runs, RankRule.IsFailedRoundTrip(s.RoundTrip)))])))
                .ToDictionary(x => x.First, x => x.Second);
            var rows = new List<string[]>();
            foreach (var s in op)
            {
                var v = byCase.GetValueOrDefault((s.Serializer, s.Operation, s.Objects));
                // Its own code is what a serializer is for: the column names what else costs most (the verdict has both).
                var first = v?.Causes.FirstOrDefault(c => !c.OwnCode);
                rows.Add([s.Serializer, Fmt.Objects(s.Objects), Fmt.Ms(s.MeanDurationMs), ranks[s],
                    v is { Fastest: not null, FastestMs: > 0 } ? Fmt.Num(s.MeanDurationMs / v.FastestMs) : "-",
                    s.CpuKnown ? Fmt.Ms(s.CpuMs) : "-", Fmt.Mb((long)s.AllocatedBytes), Fmt.Ms(s.GcPauseMs), Fmt.Num(s.Exceptions),
                    .. (cost ? new[] { costs.GetValueOrDefault((s.Serializer, s.Operation, s.Objects))?.DescribeHeadline() ?? "-" } : []),
                    first is null ? "-" : $"{first.Name.Split(':')[0]} {Fmt.Pct(first.Share)}"]);
            }
            // The last column gets what the others leave of the line (two spaces between columns).
            var widths = table.Columns.Select((c, i) => rows.Select(r => r[i].Length).Append(c.Length).Max()).ToList();
            var left = Math.Max(12, PlainText.Width - widths.SkipLast(1).Sum() - 2 * (widths.Count - 1));
            foreach (var row in rows) table.AddRow([.. row.SkipLast(1), Cut(row[^1], left)]);
            flips |= ranks.Values.Any(r => r.EndsWith('~'));
            tables.Add(table);
        }
        if (tables.Count == 0) return tables;
        if (flips) tables[^1].Notes.Add("Rank ~: the order could flip on another launch (pool launches: esp diff B1 B2 vs T1 T2)");
        if (cost) tables[^1].Notes.Add("Tracing: how much slower the case ran traced, by its thread CPU clock; ~: its 95% interval holds 0 (--tables all)");
        return tables;
    }

    /// <summary>
    /// The compact text's notes, within 120 columns: the trace, the CPU source with its check against the thread CPU
    /// clock, and the warnings, wrapped (--tables all and JSON have every other note).
    /// </summary>
    internal static IReadOnlyList<string> CompactNotes(TraceAnalysis analysis)
    {
        var t = analysis.Trace;
        var runtime = analysis.InProcess?.Runtime is { Length: > 0 } r ? r : t.RuntimeVersion;
        var source = t.SamplingSource.Split(": ")[0] + (t.ObservedSampleIntervalMs is { } iv ? $", a sample every {iv:F2} ms" : "");
        var check = CpuClockAgreement.Of(analysis.Runs) is { } a
            ? $"; against the thread CPU clock: {Fmt.SignedPercent(a.Bias)} in all, {Fmt.SignedPercent(a.Min)} to {Fmt.SignedPercent(a.Max)} per run" : "";
        return [Verdicts.Fit($"Trace: {t.Path} ({t.SizeBytes / 1048576.0:F1} MB, {t.DurationMs / 1000:F1} s, {t.ReaderInWords}){(runtime is null ? "" : ", " + runtime)}"), Verdicts.Fit($"CPU: {source}{check}"),
            .. analysis.Warnings.SelectMany(w => Verdicts.Wrap("warning: " + w, "  "))];
    }

    /// <summary>"0.085 (JIT (tiering) 83%)": the other threads' CPU per call, and the largest role's share of it when there is any.</summary>
    private static string OtherThreadsCell(CaseSummary s)
    {
        if (s.OtherThreadsCpuMs is not { } ms) return "-";
        var top = s.OtherThreadsByRole.Where(r => r.Value > 0).OrderByDescending(r => r.Value).FirstOrDefault();
        return ms > 0 && top.Value > 0 ? $"{Fmt.Ms(ms)} ({WireNames.Of(top.Key)} {Fmt.Pct(top.Value / ms)})" : Fmt.Ms(ms);
    }

    /// <summary>"; tracer threads 0.012 ms per call": EventPipe's threads in the process, part of what tracing costs the case (kernel session only).</summary>
    private static string TracerThreads(CaseSummary s) =>
        s.OtherThreadsCpuMs is null ? "" : $"; tracer threads {Fmt.Ms(s.OtherThreadsByRole.GetValueOrDefault(ThreadRole.Tracer))} ms per call";

    private static string Cut(string text, int width) => text.Length <= width ? text : text[..(width - 3)] + "...";

    /// <summary>" on .NET 8.0.31": the runtime the benchmark said it ran on (results.json), so tables of two runtimes are told apart.</summary>
    private static string OnRuntime(TraceAnalysis analysis) => analysis.InProcess?.Runtime is { Length: > 0 } r ? $" on {r}" : "";

    /// <summary>What the CPU column measures, in a few words: the two sources differ by up to 2x (docs/analyzer.md, "Accuracy").</summary>
    /// <param name="crew">Rows of --threads runs: the CPU is every worker thread's, per call.</param>
    public static string CpuMeaning(TraceInfo trace, bool crew = false) => trace.OnCpu
        ? crew ? "on-CPU time of the worker threads per call, kernel samples" : "on-CPU time of the worker, kernel samples"
        : "time in managed code, EventPipe samples (not on-CPU time)";

    /// <summary>Per serializer, operation and N: the top methods, unnamed code split by caller under its row (<see cref="HotMethodReport"/>).</summary>
    public static IEnumerable<TextTable> HotMethodTables(TraceAnalysis analysis, int top) => HotMethodReport.Tables(analysis, top);


    public static TextTable RunsTable(TraceAnalysis analysis)
    {
        var table = new TextTable("runs", ["serializer", "operation", "data", "objects", "run", "warmup", "window", "durationMs", "stopwatchMs", "cpuMs", "gen0", "gen1", "gen2", "gcPauseMs", "gcSuspendMs", "gcRestartMs", "allocatedBytes", "reflectionMs", "activatorMs", .. analysis.Columns.Select(c => c.Name), "inProcessDurationMs", "inProcessGen0", "inProcessGen1", "inProcessGen2", "inProcessGcPauseMs", "inProcessAllocatedBytes", "otherThreadsCpuMs", "inProcessProcessCpuMs"]);
        foreach (var r in analysis.Runs)
        {
            var p = r.InProcess;
            table.AddRow([r.Key.Serializer, r.Key.Operation, r.Data, r.Key.Objects == 0 ? "" : Fmt.Int(r.Key.Objects), Fmt.Int(r.Key.Run), r.IsWarmup ? "true" : "false",
                WireNames.Of(r.Source), Fmt.Num(r.DurationMs, "F4"), r.StopwatchMs is { } sw ? Fmt.Num(sw, "F4") : "",
                r.CpuKnown ? Fmt.Num(r.CpuMs, "F3") : "", Fmt.Int(r.Gen0), Fmt.Int(r.Gen1), Fmt.Int(r.Gen2), Fmt.Num(r.GcPauseMs, "F4"), Fmt.Num(r.GcSuspendMs, "F4"), Fmt.Num(r.GcRestartMs, "F4"), Fmt.Int(r.Counters.AllocatedBytes),
                Fmt.Num(r.TagMs("Reflection"), "F3"), Fmt.Num(r.TagMs("Activator"), "F3"), .. analysis.Columns.Select(c => c.Of(r) is { } v ? c.RunCell(v) : ""),
                p is null ? "" : Fmt.Num(p.DurationMs, "F4"), p is null ? "" : Fmt.Int(p.GcCount.Gen0), p is null ? "" : Fmt.Int(p.GcCount.Gen1),
                p is null ? "" : Fmt.Int(p.GcCount.Gen2), p is null ? "" : Fmt.Num(p.GcPauseMs, "F4"), p is null ? "" : Fmt.Int(p.AllocatedBytes),
                r.OtherThreadsCpuMs is { } other ? Fmt.Num(other, "F3") : "", p?.ProcessCpuMs is { } process ? Fmt.Num(process, "F3") : ""]);
        }
        return table;
    }

    public static IReadOnlyList<string> TraceNotes(TraceAnalysis analysis)
    {
        var t = analysis.Trace;
        var notes = new List<string>
        {
            $"Trace: {t.Path} ({t.Format}, {t.ReaderInWords}, {t.SizeBytes / 1048576.0:F1} MB, {t.Events:N0} events, {t.DurationMs / 1000:F1} s){(analysis.InProcess?.Runtime is { Length: > 0 } benchmarkRuntime ? $", runtime {benchmarkRuntime}{(t.RuntimeVersion is null ? "" : $" ({t.RuntimeVersion})")}" : t.RuntimeVersion is null ? "" : $", runtime {t.RuntimeVersion}")}",
            $"CPU: {t.SamplingSource}{(t.ObservedSampleIntervalMs is { } iv ? $"; observed sample interval {iv:F2} ms" : "")}",
            RunSourceText.Line(analysis),
        };
        if (CpuClockCheck.Line(analysis.Runs) is { } check) notes.Insert(2, check);
        if (analysis.Runs.Count == 0) notes.Add(WholeTraceTables.GcLine(analysis) + " (no benchmark runs in this trace: the tables above are the whole trace)");
        notes.AddRange(KernelTables.Notes(analysis));
        if (t.TracerCpu is { } tracer) notes.Add(tracer.Line());
        if (analysis.InProcess is { Runs.Count: > 0, TracingCost: null, TracingCostProblem: null })
            notes.Add("Tracing cost per case: not measured (esp record --tracing-cost runs each case again with tracing off and on; docs/recorder.md#what-tracing-costs)");
        if (NativeRuntimeNote.Line(analysis) is { } native) notes.Add(native);
        if (GcBudgetNote.Line(analysis) is { } budget) notes.Add(budget);
        notes.AddRange(analysis.BenchmarkDotNetSummary.Select(c => c.Line()));
        notes.AddRange(analysis.Warnings.Select(w => "warning: " + w));
        return notes;
    }

    /// <param name="top">--top: the hot methods' rows per table (`hotMethods`, null without it).</param>
    public static JsonObject Json(TraceAnalysis analysis, int top = 0)
    {
        var t = analysis.Trace;
        var trace = new JsonObject
        {
            ["path"] = t.Path,
            ["format"] = t.Format,
            ["reader"] = t.Reader,
            ["sizeBytes"] = t.SizeBytes,
            ["durationMs"] = t.DurationMs,
            ["events"] = t.Events,
            ["eventsLost"] = t.EventsLost,
            ["processName"] = t.ProcessName,
            ["processId"] = t.ProcessId,
            ["runtimeVersion"] = t.RuntimeVersion,
            ["samplingSource"] = t.SamplingSource,
            ["cpuSource"] = WireNames.Of(t.CpuSource),
            ["kernel"] = t.Kernel is { } k ? KernelJson(k) : null,
            ["observedSampleIntervalMs"] = t.ObservedSampleIntervalMs,
            ["stackTagsFile"] = t.StackTagsFile,
            ["stackTagFiles"] = new JsonArray([.. t.StackTagFiles.Select(f => (JsonNode)new JsonObject
            {
                ["path"] = f.Path,
                ["builtIn"] = f.BuiltIn,
                ["entries"] = f.Entries,
                ["matchedEntries"] = f.MatchedEntries,
                ["tags"] = f.Tags,
                ["unmatchedTags"] = new JsonArray([.. f.UnmatchedTags.Select(u => (JsonNode)JsonValue.Create(u))]),
            })]),
            ["resultsFile"] = t.ResultsFile,
            ["runSource"] = WireNames.Of(t.RunSource),

            ["harnessOverheadIterations"] = t.HarnessOverheadIterations,
            ["harnessOutliers"] = t.HarnessOutliers,
            ["runNamesInferred"] = t.InferredNames is { } inferred ? JsonSerializer.SerializeToNode(inferred, ReportJsonContext.Default.InferredRunNames) : null,
            ["hasRundown"] = t.HasRundown,
            ["unresolvedSampleShare"] = t.UnresolvedSampleShare,
            ["typeLoadEvents"] = t.TypeLoadEvents,
            ["unnamedRunShare"] = NativeRuntimeNote.Shares(analysis.Runs).Unnamed,
            ["unexplainedRunShare"] = NativeRuntimeNote.Shares(analysis.Runs).Unexplained,
            ["cpuAgainstThreadClock"] = CpuClockAgreement.Of(analysis.Runs) is { } check ? new JsonObject
            {
                ["runs"] = check.Runs,
                ["traceMs"] = check.TraceMs,
                ["clockMs"] = check.ClockMs,
                ["bias"] = check.Bias,
                ["medianPerRun"] = check.Median,
                ["minPerRun"] = check.Min,
                ["maxPerRun"] = check.Max,
            } : null,
            ["truncated"] = t.Truncated,
            ["analysisSeconds"] = t.AnalysisSeconds,
        };
        // Recorded by esp: what its own processes took from the machine (only then).
        if (t.TracerCpu is { } tracer)
            trace["tracerCpu"] = new JsonObject
            {
                ["recordingSeconds"] = tracer.RecordingSeconds, ["recorderSeconds"] = tracer.RecorderSeconds,
                ["perfSeconds"] = tracer.PerfSeconds, ["coreShare"] = tracer.CoreShare,
            };
        // A BenchmarkDotNet trace with its results beside it: the traced run's mean against the summary's (only then).
        if (analysis.BenchmarkDotNetSummary is { Count: > 0 } bdn)
            trace["benchmarkDotNetSummary"] = new JsonArray([.. bdn.Select(c => (JsonNode)new JsonObject
            {
                ["serializer"] = c.Serializer, ["operation"] = c.Operation, ["objects"] = c.Objects == 0 ? null : c.Objects,
                ["tracedMs"] = c.TracedMs, ["summaryMs"] = c.SummaryMs, ["percent"] = c.Percent,
            })]);
        var runs = new JsonArray();
        foreach (var r in analysis.Runs)
        {
            var run = new JsonObject
            {
                ["serializer"] = r.Key.Serializer,
                ["operation"] = r.Key.Operation,
                ["data"] = r.Data,
                ["objects"] = r.Key.Objects == 0 ? null : r.Key.Objects,
                ["run"] = r.Key.Run,
                ["warmup"] = r.IsWarmup,
                ["stage"] = r.Stage,
                ["outlier"] = r.IsOutlier,
                ["overheadMs"] = r.OverheadMs,
                ["operations"] = r.Operations,
                ["window"] = WireNames.Of(r.Source),
                ["startMs"] = r.StartMs,
                ["durationMs"] = r.DurationMs,
                ["stopwatchMs"] = r.StopwatchMs,
                ["pinnedToStopwatch"] = r.PinnedToStopwatch,
                ["cpuMs"] = r.CpuKnown ? r.CpuMs : null,
                ["samples"] = r.Samples,
                ["gcCount"] = Gc(r.Gen0, r.Gen1, r.Gen2),
                ["gcPauseMs"] = r.GcPauseMs,
                ["gcSuspendMs"] = r.GcSuspendMs,
                ["gcRestartMs"] = r.GcRestartMs,
                ["allocatedBytes"] = r.Counters.AllocatedBytes,
                ["tags"] = Dict(r.Tags.OrderByDescending(x => x.Value)),
                ["gcPollLeafSamples"] = r.GcPollLeafSamples,
                ["unnamedLeafMs"] = r.UnnamedLeafMs,
                ["unexplainedLeafMs"] = r.UnexplainedLeafMs,
            };
            InsertColumns(run, "tags", analysis.Columns.SelectMany(c => c.RunFields(r)));
            // --threads runs only (single-thread outputs stay as they were): the crew the run was charged from.
            if (r.CrewThreadIds.Count > 0)
            {
                run["crewThreadIds"] = new JsonArray([.. r.CrewThreadIds.Select(id => (JsonNode?)JsonValue.Create(id))]);
                run["calls"] = r.Calls;
            }
            // Kernel session only (null: unknown, EventPipe alone): the process's other threads' CPU in the window, by role.
            run["otherThreadsCpuMs"] = r.OtherThreadsCpuMs;
            if (r.OtherThreadsCpuMs is not null) run["otherThreadsCpuByRole"] = Roles(r.OtherThreadsCpu);
            if (r.OffCpuMs.Count > 0) run["offCpuMs"] = Dict(r.OffCpuMs.OrderByDescending(x => x.Value).Select(x => KeyValuePair.Create(WireNames.Of(x.Key), x.Value)));
            if (r.TierMs.Count > 0 || r.NoTierMs > 0)
                run["tierMs"] = Dict(r.TierMs.OrderByDescending(x => x.Value).Select(x => KeyValuePair.Create(WireNames.Of(x.Key), x.Value)).Append(KeyValuePair.Create("none", r.NoTierMs)));
            if (r.EventPipeCpu is { } ep) run["eventPipe"] = new JsonObject { ["cpuMs"] = ep.CpuMs, ["samples"] = ep.Samples, ["tags"] = Dict(ep.Tags.OrderByDescending(x => x.Value)) };
            if (r.SwitchWaitStartMs is { } ws) run["switchWait"] = new JsonObject { ["startMs"] = ws, ["endMs"] = r.SwitchWaitEndMs };
            if (r.InProcess is { } p)
                run["inProcess"] = new JsonObject
                {
                    ["durationMs"] = p.DurationMs,
                    ["outerDurationMs"] = p.OuterDurationMs,
                    ["gcCount"] = Gc(p.GcCount.Gen0, p.GcCount.Gen1, p.GcCount.Gen2),
                    ["gcPauseMs"] = p.GcPauseMs,
                    ["allocatedBytes"] = p.AllocatedBytes,
                    ["cpuMs"] = p.CpuMs,
                    ["sizeBytes"] = p.SizeBytes,
                };
            if (r.InProcess is { ProcessCpuMs: { } processCpu }) run["inProcess"]!["processCpuMs"] = processCpu;
            if (r.InProcess is { ThreadsCpuMs: { } threadsCpu, Threads: > 1 }) run["inProcess"]!["threadsCpuMs"] = threadsCpu;
            runs.Add((JsonNode)run); // the JsonNode overload: Add<T> is reflection-based (not in the native esp)
        }
        var serializers = new JsonArray();
        var costs = analysis.TracingCost;
        foreach (var s in analysis.Cases)
        {
            var entry = new JsonObject
            {
                ["serializer"] = s.Serializer,
                ["operation"] = s.Operation,
                ["objects"] = s.Objects == 0 ? null : s.Objects,
                ["runs"] = s.Runs,
                ["warmupDurationMs"] = s.WarmupDurationMs,
                ["warmupRuns"] = s.WarmupRuns,
                ["operations"] = s.Operations,
                ["durationCv"] = s.DurationCv,
                ["maxDurationMs"] = s.MaxDurationMs,
                ["durationMs"] = s.MeanDurationMs,
                ["minDurationMs"] = s.MinDurationMs,
                ["sizeBytes"] = s.SizeBytes,
                ["cpuMs"] = s.CpuKnown ? s.CpuMs : null,
                ["gcCount"] = new JsonObject { ["gen0"] = s.Gen0, ["gen1"] = s.Gen1, ["gen2"] = s.Gen2 },
                ["gcPauseMs"] = s.GcPauseMs,
                ["allocatedBytes"] = s.AllocatedBytes,
                ["reflectionShare"] = s.ReflectionShare,
                ["activatorShare"] = s.ActivatorShare,
                ["tags"] = Dict(s.Tags),
                ["offCpuMs"] = s.OffCpuMs,
                ["otherThreadsCpuMs"] = s.OtherThreadsCpuMs,
                ["otherThreadsCpuByRole"] = s.OtherThreadsCpuMs is null ? null : Roles(s.OtherThreadsByRole),
                ["otherThreadsShare"] = s.OtherThreadsShare,
                ["offCpuByReason"] = s.OffCpuMs is null ? null : Dict(s.OffCpuByReason.Select(x => KeyValuePair.Create(WireNames.Of(x.Key), x.Value))),
                ["unoptimizedShare"] = s.UnoptimizedShare,
                ["tierShares"] = s.TierShares.Count == 0 ? null : Dict(s.TierShares.OrderByDescending(x => x.Value).Select(x => KeyValuePair.Create(WireNames.Of(x.Key), x.Value))),
                ["inProcessCpuMs"] = s.InProcessCpuMs,
                ["eventPipeCpuMs"] = s.EventPipeCpuMs,
                ["unnamedShare"] = s.UnnamedShare,
                ["unexplainedShare"] = s.UnexplainedShare,
                ["eventPipeReflectionShare"] = s.EventPipeReflectionShare,
                ["gcPollLeafShare"] = s.GcPollLeafShare,
            };
            InsertColumns(entry, "tags", analysis.Columns.Select(c => KeyValuePair.Create(c.Name, (JsonNode?)c.OfCase(s.Measured))));
            // Only in recordings that measured it: older outputs keep their exact shape.
            if (costs.TryGetValue((s.Serializer, s.Operation, s.Objects), out var cost))
            {
                entry["tracingCostPercent"] = cost.Percent;
                entry["tracingCostCi"] = new JsonArray(cost.LowPercent, cost.HighPercent);
                entry["tracingCostCpuPercent"] = cost.Cpu?.Percent;
                entry["tracingCostCpuCi"] = cost.Cpu is { } cpu ? new JsonArray(cpu.LowPercent, cpu.HighPercent) : null;
                // Part of what tracing costs the case beside the slowdown: EventPipe's own threads in the process, per call (kernel session).
                entry["tracingCostTracerThreadsMs"] = s.OtherThreadsCpuMs is null ? null : s.OtherThreadsByRole.GetValueOrDefault(ThreadRole.Tracer);
            }
            // --threads rows only: every figure but the durations and the GC pause is per call, over this many threads.
            if (s.CallingThreads > 1) entry["callingThreads"] = s.CallingThreads;
            serializers.Add((JsonNode)entry);
        }
        return new JsonObject
        {
            ["schemaVersion"] = SchemaVersion,
            ["trace"] = trace,
            ["warnings"] = new JsonArray(analysis.Warnings.Select(w => (JsonNode?)w).ToArray()),
            ["runs"] = runs,
            ["serializers"] = serializers,
            ["verdicts"] = Verdicts.Json(Verdicts.Of(analysis)),
            ["findings"] = FindingsReport.Json(analysis.Findings),
            ["wholeTrace"] = WholeTraceTables.Json(analysis),
            ["hotMethods"] = top > 0 ? HotMethodReport.Json(analysis, top) : null,
        };
    }

    private static JsonObject KernelJson(KernelSessionSummary k) => new()
    {
        ["file"] = k.File,
        ["samplePeriodMs"] = k.SamplePeriodMs,
        ["samples"] = k.Samples,
        ["processSamples"] = k.ProcessSamples,
        ["contextSwitches"] = k.ContextSwitches,
        ["wakings"] = k.Wakings,
        ["lostEvents"] = k.LostEvents,
        ["unreadableLines"] = k.UnreadableLines,
        ["unnamedLeafShare"] = k.UnnamedLeafShare,
        ["unnamedLeafShareByModule"] = Dict(k.UnnamedLeafShareByModule),
        ["symbolsFrom"] = k.SymbolsFrom,
        ["managedMethodsMapped"] = k.ManagedMethodsMapped,
        ["runsWithSwitchWindow"] = k.RunsWithSwitchWindow,
        ["medianSwitchWindowDisagreementMs"] = k.MedianSwitchWindowDisagreementMs,
        ["maxSwitchWindowDisagreementMs"] = k.MaxSwitchWindowDisagreementMs,
    };

    /// <summary>Every role, largest first, 0 included: the split always adds up to the total beside it.</summary>
    private static JsonObject Roles(IReadOnlyDictionary<ThreadRole, double> byRole)
    {
        var named = new List<KeyValuePair<string, double>>();
        foreach (var role in Collections.LargestFirst.Of(Enum.GetValues<ThreadRole>(), role => byRole.GetValueOrDefault(role)))
            named.Add(KeyValuePair.Create(WireNames.Of(role), byRole.GetValueOrDefault(role)));
        return Dict(named);
    }

    /// <summary>The columns' fields (<see cref="TraceAnalysis.Columns"/>) where the contract has them: right after <paramref name="after"/>.</summary>
    private static void InsertColumns(JsonObject node, string after, IEnumerable<KeyValuePair<string, JsonNode?>> fields)
    {
        var at = node.IndexOf(after) + 1;
        foreach (var (name, value) in fields) node.Insert(at++, name, value);
    }

    private static JsonObject Gc(int g0, int g1, int g2) => new() { ["gen0"] = g0, ["gen1"] = g1, ["gen2"] = g2 };

    private static JsonObject Dict(IEnumerable<KeyValuePair<string, double>> values) =>
        new(values.Select(x => KeyValuePair.Create(x.Key, (JsonNode?)Math.Round(x.Value, 4))));
}

// Generated metadata for the records the JSON report embeds whole (the native esp has no reflection-based serializer).
[System.Text.Json.Serialization.JsonSourceGenerationOptions(PropertyNamingPolicy = System.Text.Json.Serialization.JsonKnownNamingPolicy.CamelCase)]
[System.Text.Json.Serialization.JsonSerializable(typeof(InferredRunNames))]
internal sealed partial class ReportJsonContext : System.Text.Json.Serialization.JsonSerializerContext;
