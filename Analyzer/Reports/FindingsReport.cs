using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.Export;
using EtwSerializerProfiler.Analyzer.Findings;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports;

/// <summary>The findings list that ends `esp analyze`: one line per finding in text/Markdown, the "findings" array in JSON.</summary>
internal static class FindingsReport
{
    public const string ThresholdsDoc = "docs/findings.md";

    public static string Text(IReadOnlyList<Finding> findings, TableFormat format) =>
        Exporters.Render(new ReportDocument { Kind = ReportKind.Findings, Parts = [Part(findings)] }, format);

    /// <summary>The list: a title saying how many (or none above the thresholds), one item per finding.</summary>
    public static ListPart Part(IReadOnlyList<Finding> findings)
    {
        if (findings.Count == 0) return new ListPart($"Findings: none above the thresholds ({ThresholdsDoc})", []);
        return new ListPart($"Findings ({findings.Count}; thresholds in {ThresholdsDoc}):", [.. findings.Select(f =>
            $"[{Severity(f.Severity)}] {f.Kind}: {Subject(f)} ({Runs(f)}): {f.Message}")]);
    }

    /// <summary>
    /// The terminal's list: a line per kind of finding within 120 columns, its one finding's message or its cases
    /// (cut: <see cref="Part"/> has them whole).
    /// </summary>
    public static ListPart CompactPart(IReadOnlyList<Finding> findings)
    {
        if (findings.Count == 0) return Part(findings);
        return new ListPart($"Findings ({findings.Count}; in full: --tables all; thresholds in {ThresholdsDoc}):", [.. findings.GroupBy(f => (f.Severity, f.Kind)).Select(g =>
            Verdicts.Fit(g.Count() == 1 ? $"[{Severity(g.Key.Severity)}] {g.Key.Kind}: {(g.First() is { Serializer: not null } f && f.Message.Contains(Subject(f), StringComparison.Ordinal) ? "" : Subject(g.First()) + ": ")}{g.First().Message}"
                : $"[{Severity(g.Key.Severity)}] {g.Key.Kind} ({g.Count()}): {string.Join("; ", g.Select(Subject))}", PlainText.Width - 2))]);
    }

    /// <summary>"YamlDotNet serialize N=10,000", or "process" for a finding about the whole process: the same in every format.</summary>
    public static string Subject(Finding f) =>
        f.Serializer is null ? "process" : FindingFormat.Invariant($"{f.Serializer} {f.Operation}{(f.Objects is { } n ? FindingFormat.Invariant($" N={n:N0}") : "")}");

    public static JsonArray Json(IReadOnlyList<Finding> findings) =>
        new([.. findings.Select(f => (JsonNode?)new JsonObject
        {
            ["kind"] = f.Kind,
            ["severity"] = Severity(f.Severity),
            ["serializer"] = f.Serializer,
            ["operation"] = f.Operation,
            ["objects"] = f.Objects,
            ["runs"] = new JsonArray([.. f.Runs.Select(k => (JsonNode?)new JsonObject { ["serializer"] = k.Serializer, ["operation"] = k.Operation, ["objects"] = k.Objects, ["run"] = k.Run })]),
            ["message"] = f.Message,
            ["evidence"] = new JsonObject(f.Evidence.Select(e => KeyValuePair.Create(e.Key, (JsonNode?)Math.Round(e.Value, 4)))),
            ["frame"] = f.Frame,
        })]);

    public static string Severity(FindingSeverity s) => WireNames.Of(s);

    /// <summary>"run 1", "runs 1-4" within one N; "8 runs" across several.</summary>
    public static string Runs(Finding f)
    {
        if (f.Runs.Count == 0) return "no runs";
        if (f.Objects is null || f.Runs.Count == 1) return f.Runs.Count == 1 ? $"run {f.Runs[0].Run}" : $"{f.Runs.Count} runs";
        var numbers = f.Runs.Select(r => r.Run).Order().ToList();
        var contiguous = numbers[^1] - numbers[0] == numbers.Count - 1;
        return contiguous ? $"runs {numbers[0]}-{numbers[^1]}" : "runs " + string.Join(",", numbers);
    }
}
