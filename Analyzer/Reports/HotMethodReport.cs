using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports;

/// <summary>
/// The hot methods as every format shows them (text, Markdown and HTML tables, CSV, JSON): one table per serializer,
/// operation and N, keyed as the per-operation tables are, the top rows by exclusive time, and under a row of unnamed
/// code its split by managed caller as children. Shares are of the measured runs' CPU (the CPU column's runs); the
/// rows' exclusive times never share a sample, so they add up to at most that CPU; the children add up to at most
/// their row and are not counted beside it.
/// </summary>
internal static class HotMethodReport
{
    /// <summary>Callers listed under a row at most; the rest are one "other callers" line, so the split still adds up.</summary>
    public const int MaxCallers = 5;
    /// <summary>How a child row starts in the tables and CSV: a breakdown of the row above, not a row of its own.</summary>
    public const string ChildMark = "  └ ";

    /// <summary>One table's rows: the group's measured runs, their CPU (the shares' denominator) and the top methods.</summary>
    public sealed record Group(string Serializer, string Operation, int Objects, int Runs, double CpuMs, IReadOnlyList<Row> Rows);

    /// <summary>A method and the callers shown under it; <paramref name="OtherCallers"/> more, of <paramref name="OtherCallersMs"/>, are folded into one line.</summary>
    public sealed record Row(HotMethod Method, IReadOnlyList<HotMethodCaller> Callers, int OtherCallers, double OtherCallersMs);

    public static IReadOnlyList<Group> Groups(TraceAnalysis analysis, int top)
    {
        var measured = analysis.Runs.Where(r => r.IsMeasured).GroupBy(r => (r.Key.Serializer, r.Key.Operation, r.Key.Objects))
            .ToDictionary(g => g.Key, g => (Runs: g.Count(), CpuMs: g.Sum(r => r.CpuMs)));
        return [.. analysis.HotMethods
            .OrderBy(k => k.Key.Serializer, StringComparer.OrdinalIgnoreCase).ThenBy(k => CaseSummary.OperationOrder(k.Key.Operation)).ThenBy(k => k.Key.Objects)
            .Select(k =>
            {
                var (runs, cpu) = measured.GetValueOrDefault(k.Key);
                return new Group(k.Key.Serializer, k.Key.Operation, k.Key.Objects, runs, cpu, TopRows(k.Value.Values, top));
            })];
    }

    /// <summary>The top rows by exclusive time, each with its first callers and the rest folded into one line.</summary>
    private static List<Row> TopRows(IEnumerable<HotMethod> methods, int top) =>
        methods.OrderByDescending(m => m.ExclusiveMs).Take(top).Select(m =>
        {
            var shown = m.CalledFrom.Take(MaxCallers).ToList();
            var rest = m.CalledFrom.Skip(MaxCallers).ToList();
            return new Row(m, shown, rest.Count, rest.Sum(c => c.ExclusiveMs));
        }).ToList();

    /// <param name="width">
    /// The line's width on a terminal (0: none): a table whose names would pass it names methods "Module!Type.Method",
    /// without namespaces and generic arguments, and cuts what is still too long.
    /// </param>
    public static IEnumerable<TextTable> Tables(TraceAnalysis analysis, int top, int width = 0)
    {
        var kind = analysis.Trace.OnCpu ? "on-CPU" : "sampled";
        foreach (var g in Groups(analysis, top))
            yield return Table($"{g.Serializer} {g.Operation}{Fmt.NSuffix(g.Objects)}: top {top} methods by exclusive {kind} time ({g.Runs} measured runs; shares of {Fmt.Ms(g.CpuMs)} ms of CPU)",
                g.Rows, g.CpuMs, width);
    }

    /// <summary>One table of hot methods (a case's, or the whole trace's), as shares of <paramref name="cpuMs"/>.</summary>
    public static TextTable Table(string title, IEnumerable<HotMethod> methods, int top, double cpuMs) => Table(title, TopRows(methods, top), cpuMs, width: 0);

    /// <summary>The columns after the method's: "  Exclusive ms  Exclusive  Inclusive ms  Inclusive".</summary>
    private const int FiguresWidth = 50;

    private static TextTable Table(string title, IReadOnlyList<Row> rows, double cpuMs, int width)
    {
        var table = new TextTable(title, ["Method", "Exclusive ms", "Exclusive", "Inclusive ms", "Inclusive"]);
        string Share(double ms) => cpuMs > 0 ? Fmt.Pct(ms / cpuMs) : "-";
        var room = width - FiguresWidth;
        var shorten = width > 0 && rows.Any(r => r.Method.Name.Length > room || r.Callers.Any(c => ChildMark.Length + c.Display.Length > room));
        foreach (var row in rows)
        {
            var m = row.Method;
            table.AddRow(shorten ? Verdicts.Fit(ShortName(m.Name), room) : m.Name, Fmt.Ms(m.ExclusiveMs), Share(m.ExclusiveMs), Fmt.Ms(m.InclusiveMs), Share(m.InclusiveMs));
            foreach (var c in row.Callers)
                table.AddRow(ChildMark + (shorten ? Verdicts.Fit($"{c.Work}, called from {ShortName(c.Caller)}", room - ChildMark.Length) : c.Display),
                    Fmt.Ms(c.ExclusiveMs), Share(c.ExclusiveMs), "", "");
            if (row.OtherCallers > 0) table.AddRow($"{ChildMark}{row.OtherCallers} other callers", Fmt.Ms(row.OtherCallersMs), Share(row.OtherCallersMs), "", "");
        }
        if (rows.Any(r => r.Callers.Count > 0))
            table.Notes.Add("└ rows: the unnamed code above, split by the managed method that called it (part of its exclusive time, not added)");
        return table;
    }

    /// <summary>"Module!Type.Method" of "Module!Namespace.Type.Method" (<see cref="Verdicts.Short"/>).</summary>
    private static string ShortName(string name)
    {
        var bang = name.IndexOf('!');
        return bang < 0 ? Verdicts.Short(name) : name[..(bang + 1)] + Verdicts.Short(name[(bang + 1)..]);
    }

    /// <summary>CSV: one line per method and one per caller under it (its method in `method`, the caller in `calledFrom`).</summary>
    public static TextTable Csv(TraceAnalysis analysis, int top)
    {
        var table = new TextTable("hot methods", ["serializer", "operation", "objects", "runs", "runsCpuMs", "method", "calledFrom", "work", "exclusiveMs", "inclusiveMs"]);
        foreach (var g in Groups(analysis, top))
        {
            string[] Head() => [g.Serializer, g.Operation, g.Objects == 0 ? "" : Fmt.Int(g.Objects), Fmt.Int(g.Runs), Fmt.Num(g.CpuMs, "F3")];
            foreach (var row in g.Rows)
            {
                var m = row.Method;
                table.AddRow([.. Head(), m.Name, "", "", Fmt.Num(m.ExclusiveMs, "F3"), Fmt.Num(m.InclusiveMs, "F3")]);
                foreach (var c in row.Callers) table.AddRow([.. Head(), m.Name, c.Caller, c.Work, Fmt.Num(c.ExclusiveMs, "F3"), ""]);
                if (row.OtherCallers > 0) table.AddRow([.. Head(), m.Name, $"({row.OtherCallers} other callers)", "", Fmt.Num(row.OtherCallersMs, "F3"), ""]);
            }
        }
        return table;
    }

    /// <summary>JSON `hotMethods`: per serializer, operation and N, the rows with their callers nested as `calledFrom`.</summary>
    public static JsonArray Json(TraceAnalysis analysis, int top)
    {
        var groups = new JsonArray();
        foreach (var g in Groups(analysis, top))
        {
            var methods = new JsonArray();
            foreach (var row in g.Rows)
            {
                var m = row.Method;
                var method = new JsonObject
                {
                    ["method"] = m.Name,
                    ["exclusiveMs"] = Round(m.ExclusiveMs),
                    ["inclusiveMs"] = Round(m.InclusiveMs),
                };
                if (m.CalledFrom.Count > 0)
                {
                    method["calledFrom"] = new JsonArray([.. row.Callers.Select(c => (JsonNode)new JsonObject
                    {
                        ["caller"] = c.Caller,
                        ["work"] = c.Work,
                        ["exclusiveMs"] = Round(c.ExclusiveMs),
                    })]);
                    method["otherCallers"] = row.OtherCallers;
                    method["otherCallersMs"] = Round(row.OtherCallersMs);
                }
                methods.Add((JsonNode)method);
            }
            groups.Add((JsonNode)new JsonObject
            {
                ["serializer"] = g.Serializer,
                ["operation"] = g.Operation,
                ["objects"] = g.Objects == 0 ? null : g.Objects,
                ["runs"] = g.Runs,
                ["cpuMs"] = g.CpuMs,
                ["methods"] = methods,
            });
        }
        return groups;
    }

    private static double Round(double ms) => Math.Round(ms, 4);
}
