using System.Text.Json.Nodes;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// The figures every format shows through a <see cref="CaseColumn"/>, in the order they are written: after the
/// stack tag shares in the operation tables and the runs CSV, after the tags in the JSON. A new figure is one more
/// entry here (its run figure in the model first, if it is new).
/// </summary>
internal static class CaseColumns
{
    public static readonly CaseColumn Exceptions = new()
    {
        Header = "Exceptions",
        Name = "exceptions",
        Of = r => r.Counters.Exceptions,
        RunCell = v => Fmt.Int((long)v),
        RunDetails = r => [KeyValuePair.Create("exceptionsByType", (JsonNode?)new JsonObject(r.Counters.ExceptionsBySite.Select(x => KeyValuePair.Create(SiteText.Of(x.Key), (JsonNode?)x.Value))))],
    };

    public static readonly CaseColumn ContentionMs = new() { Header = "Contention ms", Name = "contentionMs", Of = r => r.Counters.ContentionMs, Cell = Fmt.Ms };

    public static readonly CaseColumn JitMs = new()
    {
        Header = "JIT ms",
        Name = "jitMs",
        Of = r => r.Counters.JitMs,
        Cell = Fmt.Ms,
        RunDetails = r => [KeyValuePair.Create("jitMethods", (JsonNode?)r.Counters.JitMethods)],
    };

    /// <summary>What an analysis shows unless told otherwise (<see cref="TraceAnalysis.Columns"/>, and the diff's settings).</summary>
    public static IReadOnlyList<CaseColumn> Default { get; } = [Exceptions, ContentionMs, JitMs];
}
