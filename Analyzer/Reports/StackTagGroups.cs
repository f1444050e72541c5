using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports;

/// <summary>
/// Folds stack tag paths into the few groups a reader compares serializers by, using the path's first level:
/// Serialize\X and Deserialize\X are the serializer's own code; Reflection, Activator, GC and JIT keep their names;
/// the benchmark's own tags and untagged stacks are Other. A first level this list does not know (a custom stack
/// tags file) keeps its own name instead of disappearing into Other.
/// </summary>
internal static class StackTagGroups
{
    public const string SerializerCode = "Serializer code";
    public const string Reflection = "Reflection";
    public const string Activator = "Activator";
    public const string Gc = "GC";
    public const string Jit = "JIT";
    public const string Other = "Other";

    /// <summary>The fixed groups, in the order charts and tables show them; unknown first levels go before Other.</summary>
    public static IReadOnlyList<string> Known { get; } = [SerializerCode, Reflection, Activator, Gc, Jit];

    public static string GroupOf(string tagPath)
    {
        var slash = tagPath.IndexOf('\\', StringComparison.Ordinal);
        var first = slash < 0 ? tagPath : tagPath[..slash];
        return first switch
        {
            "Serialize" or "Deserialize" => SerializerCode,
            Reflection => Reflection,
            Activator => Activator,
            Gc => Gc,
            Jit => Jit,
            _ when first.Length == 0 || first == Other || first.StartsWith("Test ", StringComparison.Ordinal) => Other,
            _ => first,
        };
    }

    /// <summary>Milliseconds per group; every group of <paramref name="order"/> is present (0 when absent).</summary>
    public static IReadOnlyDictionary<string, double> Group(IReadOnlyDictionary<string, double> tags, IReadOnlyList<string> order)
    {
        var grouped = order.ToDictionary(g => g, _ => 0.0, StringComparer.Ordinal);
        foreach (var (path, ms) in tags)
        {
            var g = GroupOf(path);
            grouped[g] = grouped.GetValueOrDefault(g) + ms;
        }
        return grouped;
    }

    /// <summary>The groups present in these summaries: the fixed ones, then unknown first levels by total time, then Other.</summary>
    public static IReadOnlyList<string> Order(IEnumerable<CaseSummary> summaries)
    {
        var extra = summaries.SelectMany(s => s.Tags)
            .GroupBy(t => GroupOf(t.Key))
            .Where(g => !Known.Contains(g.Key) && g.Key != Other)
            .OrderByDescending(g => g.Sum(t => t.Value))
            .Select(g => g.Key);
        return [.. Known, .. extra, Other];
    }

    /// <summary>
    /// One table per operation: mean CPU ms per operation (serializer call) in each group and its share; with a kernel session also the
    /// worker's time off the CPU and its main reasons, so the row accounts for the run's wall time.
    /// </summary>
    /// <param name="onCpu">The tags come from kernel samples (on-CPU time), not EventPipe's (managed time).</param>
    public static IEnumerable<TextTable> Tables(IReadOnlyList<CaseSummary> summaries, bool onCpu = false)
    {
        var order = Order(summaries);
        var offCpu = summaries.Any(s => s.OffCpuMs is not null);
        foreach (var op in summaries.GroupBy(s => s.Operation))
        {
            var what = onCpu ? "on-CPU" : "sampled";
            var table = new TextTable($"{op.Key}: where the time goes (mean {what} ms per operation by stack tag group, share of all {what} time, GC included; Unnamed: share ending in code without a name, stripped native runtime; Unexplained: the part of it no GC pause, JIT, type load, exception or stub explains{(offCpu ? "; off-CPU time by reason" : "")})",
                ["Serializer", "N", onCpu ? "On-CPU ms" : "Sampled ms", .. order, "Unnamed", "Unexplained", .. (offCpu ? new[] { "Off-CPU ms", "Off-CPU reasons" } : [])]);
            foreach (var s in op)
            {
                var groups = Group(s.Tags, order);
                var total = groups.Values.Sum();
                // No CPU source covered the row's runs (a kernel session cut short): missing, never 0.
                table.AddRow([s.Serializer, Fmt.Objects(s.Objects), s.CpuKnown ? Fmt.Ms(total) : "-",
                    .. order.Select(g => total <= 0 ? "-" : $"{Fmt.Ms(groups[g])} ({Fmt.Pct(groups[g] / total)})"),
                    s.UnnamedShare is { } unnamed ? Fmt.Pct(unnamed) : "-",
                    s.UnexplainedShare is { } unexplained ? Fmt.Pct(unexplained) : "-",
                    .. (offCpu ? new[] { s.OffCpuMs is { } off ? Fmt.Ms(off) : "-", Reasons(s) } : [])]);
            }
            if (ConcurrentRunsNote.Of(op) is { } concurrent) table.Notes.Add(concurrent);
            yield return table;
        }
    }

    /// <summary>The main off-CPU reasons, largest first (those above 5% of the off-CPU time, at most three).</summary>
    private static string Reasons(CaseSummary s) =>
        string.Join("; ", s.OffCpuByReason.Where(r => r.Value >= 0.05 * (s.OffCpuMs ?? 0) && r.Value > 0).Take(3).Select(r => $"{WireNames.Of(r.Key)} {Fmt.Ms(r.Value)}"));
}
