using System.Text.RegularExpressions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// The tier of the code each measured-run sample ran in, computed without the analyzer or the benchmark's warm-up rule:
/// perf names JIT code itself from the runtime's /tmp/perf-PID.map, and with DOTNET_PerfMapShowOptimizationTiers=1 the
/// runtime appends each code version's tier to its name ("...::Read(..)[QuickJitted]"). A sample's tier is that of its
/// innermost managed frame (the code running, or the managed code that called into native code), as the analyzer
/// defines it (docs/analyzer.md); a frame in a precompiled image (perf names the .dll, no symbol) is ReadyToRun code.
/// Stubs have no tier and are passed over.
/// </summary>
public static partial class PerfMapTierTruth
{
    /// <summary>The runtime's own tier names (PerfMap::GetOptimizationTierName) for code that is not optimized.</summary>
    public static readonly string[] Unoptimized = ["QuickJitted", "InstrumentedTier", "MinOptJitted"];
    /// <summary>Optimized code that still counts for dynamic PGO: the analyzer counts it as instrumented (not final).</summary>
    public const string OptimizedInstrumented = "InstrumentedTierOptimized";
    public const string ReadyToRun = "ReadyToRun";

    [GeneratedRegex(@"\)\[(?<tier>[A-Za-z0-9]+)\] \(/tmp/perf-\d+\.map\)$")]
    private static partial Regex TierSuffix();

    /// <summary>One serializer and operation's measured samples outside GC pauses, by tier; Untiered = no managed frame.</summary>
    public sealed record Tiers(string Serializer, string Operation, IReadOnlyDictionary<string, int> ByTier, int Untiered)
    {
        public int Managed => ByTier.Values.Sum();
        public double Share(params string[] tiers) => Managed == 0 ? 0 : (double)tiers.Sum(t => ByTier.GetValueOrDefault(t)) / Managed;
        /// <summary>The not-steady-state finding's measure: tier-0, instrumented (either kind) and minimal-optimization code.</summary>
        public double UnoptimizedShare => Share([.. Unoptimized, OptimizedInstrumented]);
        public override string ToString() =>
            $"{Managed} managed samples: " + string.Join(", ", ByTier.OrderByDescending(kv => kv.Value).Select(kv => $"{kv.Key} {(double)kv.Value / Math.Max(1, Managed):P0}"));
    }

    public static IReadOnlyList<Tiers> Compute(string traceFolder)
    {
        var (windows, pauses) = PerfMapSamples.MeasuredWindows(Path.Combine(traceFolder, "trace.nettrace"));
        var counts = new Dictionary<(string, string), (Dictionary<string, int> ByTier, int Untiered)>();
        foreach (var (tid, timeNs, frames) in PerfMapSamples.Samples(Path.Combine(traceFolder, "kernel.perf-script.txt.gz")))
        {
            var w = windows.FirstOrDefault(x => x.Tid == tid && x.BeginNs <= timeNs && timeNs < x.EndNs);
            if (w is null || pauses.Any(p => p.Start <= timeNs && timeNs < p.End)) continue;
            var key = (w.Serializer, w.Operation);
            if (!counts.TryGetValue(key, out var c)) c = ([], 0);
            if (Tier(frames) is { } tier) c.ByTier[tier] = c.ByTier.GetValueOrDefault(tier) + 1;
            else c.Untiered++;
            counts[key] = c;
        }
        return [.. counts.Select(kv => new Tiers(kv.Key.Item1, kv.Key.Item2, kv.Value.ByTier, kv.Value.Untiered))];
    }

    /// <summary>The tier of the innermost managed frame, leaf first; null when no frame is managed code.</summary>
    public static string? Tier(IEnumerable<string> perfFramesLeafFirst)
    {
        foreach (var frame in perfFramesLeafFirst)
        {
            if (TierSuffix().Match(frame) is { Success: true } m) return m.Groups["tier"].Value;
            // Precompiled code: perf finds no symbol in the managed image and names the image.
            if (frame.EndsWith(".dll)", StringComparison.Ordinal) && frame.Contains("[unknown]", StringComparison.Ordinal)) return ReadyToRun;
        }
        return null;
    }
}
