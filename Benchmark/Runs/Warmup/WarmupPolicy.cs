using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Benchmark.Runs.Warmup;

/// <summary>
/// The warm-up and run-length options: --warmup auto|N, --warmup-max-runs, --warmup-max-ms, --warmup-min-calls, --ops auto|K, --run-ms.
/// </summary>
/// <param name="FixedRuns">--warmup N: exactly N warm-up runs (0 = none: the measured runs include the cold start). Null = auto.</param>
/// <param name="FixedOperations">--ops K: K serializer calls per run. Null = auto: the pilot sizes runs to <paramref name="TargetRun"/>.</param>
public sealed record WarmupPolicy(int? FixedRuns, SteadyStateRule Rule, int? FixedOperations, TimeSpan TargetRun)
{
    /// <summary>
    /// A run of ~20 ms holds about 20 samples of a 1 ms CPU sampler (EventPipe's SampleProfiler, perf at 1 kHz):
    /// enough to attribute a run, while five measured runs of every case keep the quick default near a minute.
    /// </summary>
    public static readonly TimeSpan DefaultTargetRun = TimeSpan.FromMilliseconds(20);

    public static readonly WarmupPolicy Auto = new(null, new SteadyStateRule(), null, DefaultTargetRun);

    public bool IsAuto => FixedRuns is null;

    public static WarmupPolicy Parse(ArgReader r)
    {
        var rule = new SteadyStateRule();
        var warmup = AutoOrInt(r, "warmup", max: 100_000);
        var maxRuns = r.Int("warmup-max-runs", rule.MaxRuns, min: 1, max: 100_000);
        var maxMs = r.Int("warmup-max-ms", (int)rule.MaxTime.TotalMilliseconds, min: 1, max: 3_600_000);
        int? minCalls = r.Has("warmup-min-calls") ? r.Int("warmup-min-calls", 0, min: 0, max: 1_000_000) : null;
        var ops = AutoOrInt(r, "ops", min: 1, max: OperationsPilot.MaxOperations);
        var runMs = r.Int("run-ms", (int)DefaultTargetRun.TotalMilliseconds, min: 1, max: 60_000);
        return new(warmup, rule with { MaxRuns = maxRuns, MaxTime = TimeSpan.FromMilliseconds(maxMs), MinCalls = minCalls }, ops, TimeSpan.FromMilliseconds(runMs));
    }

    private static int? AutoOrInt(ArgReader r, string name, int min = 0, int max = int.MaxValue)
    {
        var s = r.String(name);
        if (s is null || s.Equals("auto", StringComparison.OrdinalIgnoreCase)) return null;
        if (int.TryParse(s, System.Globalization.NumberStyles.Integer, System.Globalization.CultureInfo.InvariantCulture, out var v) && v >= min && v <= max) return v;
        throw new UsageException($"--{name} expects auto or a whole number from {min} to {max}, got '{s}'");
    }
}
