namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>The optimization tier of a piece of managed code, as the runtime reported it when the code was made; written by its <see cref="WireNameAttribute"/>.</summary>
public enum CodeTier
{
    [WireName("unknown")] Unknown,
    /// <summary>Tier 0 (quick JIT, no optimization).</summary>
    [WireName("tier0")] Tier0,
    /// <summary>Tier 0 or tier 1 code with dynamic-PGO instrumentation (counting before tier 1).</summary>
    [WireName("instrumented")] Instrumented,
    /// <summary>On-stack replacement: a long-running loop moved to optimized code mid-call.</summary>
    [WireName("osr")] Osr,
    /// <summary>Tier 1: the steady-state code.</summary>
    [WireName("tier1")] Tier1,
    /// <summary>Fully optimized without tiering (tiering off, or methods the runtime never tiers).</summary>
    [WireName("optimized")] Optimized,
    /// <summary>Minimal optimization (debuggable code, or methods too big to optimize).</summary>
    [WireName("minopts")] MinOpts,
    /// <summary>Precompiled ReadyToRun code from the image (named by rundown; it never went through the JIT in this trace).</summary>
    [WireName("readyToRun")] ReadyToRun,
}

/// <summary>What the tables and the not-steady-state finding call unoptimized, defined once for both.</summary>
internal static class CodeTiers
{
    public static readonly CodeTier[] Unoptimized = [CodeTier.Tier0, CodeTier.Instrumented, CodeTier.MinOpts];

    /// <summary>Share of the runs' managed CPU (samples with a tiered frame) in unoptimized code; null without tiers.</summary>
    public static double? UnoptimizedShare(IEnumerable<RunAnalysis> runs)
    {
        var list = runs.ToList();
        var managed = list.Sum(r => r.TierMs.Values.Sum());
        return managed <= 0 ? null : list.Sum(r => Unoptimized.Sum(t => r.TierMs.GetValueOrDefault(t))) / managed;
    }
}
