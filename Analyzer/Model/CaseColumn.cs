using System.Text.Json.Nodes;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// One per-run figure as every format shows it, like BenchmarkDotNet's IColumn: the operation tables' cell (text,
/// Markdown, HTML), the runs CSV's cell, the field of the JSON's runs and serializers, and the diff's metric when
/// <see cref="Diff"/>. The formats read the analysis's <see cref="TraceAnalysis.Columns"/> (the diff its settings'),
/// so a figure is written once, here, not once per format; a case's figure is derived from its runs by one rule.
/// </summary>
public sealed record CaseColumn
{
    /// <summary>The operation tables' header ("JIT ms").</summary>
    public required string Header { get; init; }
    /// <summary>Its name where programs read it: the JSON field (runs and serializers), the runs CSV's header, the diff's metric.</summary>
    public required string Name { get; init; }
    /// <summary>The run's whole figure (not per call); null when the run does not have it: `-`, JSON null, CSV empty, never 0.</summary>
    public required Func<RunAnalysis, double?> Of { get; init; }
    /// <summary>
    /// Divided by one thread's operations (<see cref="RunAnalysis.Operations"/>: the window's clock time, as Mean ms),
    /// not by every calling thread's calls (<see cref="RunAnalysis.Calls"/>: what the run's threads did, as CPU ms).
    /// </summary>
    public bool PerThreadOperation { get; init; }
    /// <summary>The operation tables' cell of the case's figure.</summary>
    public Func<double, string> Cell { get; init; } = v => Fmt.Num(v);
    /// <summary>The runs CSV's cell of a run's figure.</summary>
    public Func<double, string> RunCell { get; init; } = v => Fmt.Num(v, "F3");
    /// <summary>Fields the runs JSON writes right after this one: a count's breakdown (exceptions by type, JIT's methods).</summary>
    public Func<RunAnalysis, IEnumerable<KeyValuePair<string, JsonNode?>>>? RunDetails { get; init; }
    /// <summary>Whether esp diff compares it; off for the figures the diff never had, so its outputs keep their shape.</summary>
    public bool Diff { get; init; }

    /// <summary>A run's figure per call (or per operation, <see cref="PerThreadOperation"/>): what the case's mean and the diff are made of.</summary>
    public double? PerOperation(RunAnalysis run) => Of(run) is { } v ? v / (PerThreadOperation ? run.Operations : run.Calls) : null;

    /// <summary>The run's JSON fields: its figure, then its details.</summary>
    public IEnumerable<KeyValuePair<string, JsonNode?>> RunFields(RunAnalysis run) =>
        [KeyValuePair.Create(Name, (JsonNode?)Of(run)), .. RunDetails?.Invoke(run) ?? []];

    /// <summary>
    /// The case's figure: the mean of <see cref="PerOperation"/> over the measured runs that have it; 0 without
    /// measured runs (as every per-call figure of the tables), null when none of them has it.
    /// </summary>
    public double? OfCase(IReadOnlyList<RunAnalysis> measured)
    {
        if (measured.Count == 0) return 0;
        var values = measured.Select(PerOperation).OfType<double>().ToList();
        return values.Count == 0 ? null : values.Average();
    }
}
