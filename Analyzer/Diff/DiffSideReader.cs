using System.Text.Json;
using System.Text.Json.Nodes;
using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Diff;

/// <summary>
/// Describes one side of a diff from its analysis: the runtime, the knobs that select emitted code or reflection
/// (AppContext switches and dynamic code support from results.json, environment from manifest.json), and the
/// serializers the benchmark could not run there, so rows missing on one side come with a reason.
/// </summary>
public static class DiffSideReader
{
    public static DiffSide From(TraceAnalysis analysis, string? manifestPath, AnalyzerOptions options)
    {
        var results = analysis.InProcess;
        var configuration = new List<string>();
        if (results?.AppContextSwitches is { Count: > 0 } switches)
            configuration.AddRange(switches.Select(s => $"AppContext {s.Key}={(s.Value ? "true" : "false")}"));
        if (results?.DynamicCodeSupported is { } dynamicCode)
            configuration.Add(dynamicCode ? "dynamic code supported (emitted serializers)" : "dynamic code NOT supported (reflection-only fallbacks)");
        var warnings = analysis.Warnings.ToList();
        configuration.AddRange(Environment(manifestPath, warnings).Select(e => $"env {e.Key}={e.Value}"));

        var unsupported = (results?.Unsupported ?? [])
            .Where(u => options.Includes(u.Serializer))
            .GroupBy(u => u.Serializer, StringComparer.OrdinalIgnoreCase)
            .ToDictionary(g => g.Key, g => g.First().Reason, StringComparer.OrdinalIgnoreCase);

        return new DiffSide(
            analysis.Trace.Path,
            results?.Runtime ?? analysis.Trace.RuntimeVersion,
            configuration,
            unsupported,
            warnings)
        {
            CpuSource = analysis.Trace.CpuSource,
        };
    }

    /// <summary>
    /// Several launches of one configuration as one side: the diff takes each launch's mean as one sample, so the
    /// test sees process-to-process variance that runs inside one process cannot show. Launches that disagree on
    /// runtime or configuration are not one configuration: that is said in a warning, not hidden.
    /// </summary>
    public static DiffSide Pool(IReadOnlyList<DiffSide> launches)
    {
        if (launches.Count == 0) throw new ArgumentException("a side needs at least one trace", nameof(launches));
        if (launches.Count == 1) return launches[0];
        var first = launches[0];
        var warnings = new List<string>();
        foreach (var launch in launches.Skip(1))
        {
            if (!string.Equals(launch.Runtime, first.Runtime, StringComparison.Ordinal))
                warnings.Add($"launches differ in runtime: {first.Path} ran {first.Runtime ?? "unknown"}, {launch.Path} ran {launch.Runtime ?? "unknown"}");
            if (!launch.Configuration.SequenceEqual(first.Configuration, StringComparer.Ordinal))
                warnings.Add($"launches differ in configuration: {first.Path} ({string.Join("; ", first.Configuration)}) vs {launch.Path} ({string.Join("; ", launch.Configuration)})");
        }
        warnings.AddRange(launches.SelectMany(l => l.Warnings.Select(w => $"{l.Path}: {w}")));
        var unsupported = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        foreach (var (serializer, reason) in launches.SelectMany(l => l.Unsupported)) unsupported.TryAdd(serializer, reason);
        return new DiffSide(string.Join(" + ", launches.Select(l => l.Path)), first.Runtime, first.Configuration, unsupported, warnings)
        {
            Launches = launches.Select(l => l.Path).ToList(),
            CpuSource = launches.All(l => l.CpuSource?.IsOnCpu() is { } onCpu && onCpu == first.CpuSource?.IsOnCpu()) ? first.CpuSource : null,
        };
    }

    /// <summary>The recorded process's extra environment (esp record --env), from manifest.json's "environment".</summary>
    private static IEnumerable<KeyValuePair<string, string>> Environment(string? manifestPath, List<string> warnings)
    {
        if (manifestPath is null) return [];
        try
        {
            return JsonNode.Parse(File.ReadAllText(manifestPath))?["environment"] is JsonObject env
                ? env.Select(e => KeyValuePair.Create(e.Key, e.Value?.ToString() ?? "")).OrderBy(e => e.Key, StringComparer.Ordinal).ToList()
                : [];
        }
        catch (Exception ex) when (ex is JsonException or IOException or InvalidOperationException)
        {
            warnings.Add($"{manifestPath}: unreadable manifest ({ex.Message}); recorded environment unknown");
            return [];
        }
    }
}
