using System.Globalization;

namespace EtwSerializerProfiler.Benchmark.Runs.Warmup;

/// <summary>
/// How this runtime promotes code, as far as the warm-up needs it. With tiered compilation (the default on .NET Core
/// 3+), a method starts in tier-0 (or ReadyToRun) code; once the runtime has seen no new tier-0 activity for the
/// call-counting delay (100 ms, restarted by every new tier-0 method), it counts calls, and after the threshold (30)
/// it compiles the next tier on a background thread: with dynamic PGO (.NET 8+) first an instrumented tier, counted
/// again, then optimized tier-1. Read from the same knobs the runtime reads: runtimeconfig properties
/// (System.Runtime.TieredCompilation...) and DOTNET_/COMPlus_ environment variables (hexadecimal, as the runtime
/// parses them).
/// </summary>
public sealed record TieringSettings(bool Tiered, int CallCountThreshold, TimeSpan CallCountingDelay)
{
    public const int DefaultCallCountThreshold = 30;
    public static readonly TimeSpan DefaultCallCountingDelay = TimeSpan.FromMilliseconds(100);

    /// <summary>Without tiering every method is compiled once, fully optimized: nothing to count, nothing to wait for.</summary>
    public static readonly TieringSettings NotTiered = new(false, 0, TimeSpan.Zero);
    public static readonly TieringSettings Default = new(true, DefaultCallCountThreshold, DefaultCallCountingDelay);

    public static TieringSettings Current { get; } = Read(Environment.GetEnvironmentVariable, AppContext.GetData);

    public static TieringSettings Read(Func<string, string?> env, Func<string, object?> appContext)
    {
        if (Knob(env, appContext, "TieredCompilation", "System.Runtime.TieredCompilation") == 0 || Knob(env, appContext, "JITMinOpts", null) == 1)
            return NotTiered;
        if (Knob(env, appContext, "TC_AggressiveTiering", null) == 1)
            return new(true, 1, TimeSpan.Zero);
        var threshold = Knob(env, appContext, "TC_CallCountThreshold", "System.Runtime.TieredCompilation.CallCountThreshold") ?? DefaultCallCountThreshold;
        var delayMs = Knob(env, appContext, "TC_CallCountingDelayMs", "System.Runtime.TieredCompilation.CallCountingDelayMs") ?? (long)DefaultCallCountingDelay.TotalMilliseconds;
        return new(true, (int)Math.Max(0, threshold), TimeSpan.FromMilliseconds(Math.Max(0, delayMs)));
    }

    private static long? Knob(Func<string, string?> env, Func<string, object?> appContext, string envName, string? property)
    {
        foreach (var prefix in new[] { "DOTNET_", "COMPlus_" })
            if (env(prefix + envName) is { Length: > 0 } text)
            {
                var hex = text.StartsWith("0x", StringComparison.OrdinalIgnoreCase) ? text[2..] : text;
                if (long.TryParse(hex, NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out var v)) return v;
            }
        return property is null ? null : appContext(property) switch
        {
            bool b => b ? 1 : 0,
            string s when bool.TryParse(s, out var b) => b ? 1 : 0,
            string s when long.TryParse(s, NumberStyles.Integer, CultureInfo.InvariantCulture, out var v) => v,
            IConvertible c => c.ToInt64(CultureInfo.InvariantCulture),
            _ => null,
        };
    }
}
