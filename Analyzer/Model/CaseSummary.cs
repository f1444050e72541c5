using EtwSerializerProfiler.Analyzer.Model;

namespace EtwSerializerProfiler.Analyzer.Model;

/// <summary>
/// One case: the runs of one serializer, operation and size, aggregated over the measured (non warm-up) runs. The
/// tables, the verdicts and the findings read it (<see cref="TraceAnalysis.Cases"/>).
/// </summary>
internal sealed record CaseSummary
{
    public required string Serializer { get; init; }
    public required string Operation { get; init; }
    public required int Objects { get; init; }
    public required int Runs { get; init; }
    /// <summary>
    /// The whole warm-up: from the first warm-up run's start to the end of the last one before the first measured
    /// run, in ms of trace time (results.json's <c>warmups[].warmupMs</c> is the benchmark's own clock of it).
    /// </summary>
    public double? WarmupDurationMs { get; init; }
    /// <summary>Warm-up runs before the measured ones (the benchmark warms each case to steady state).</summary>
    public int WarmupRuns { get; init; }
    /// <summary>Serializer calls per run and calling thread (mean); the durations here are divided by it: values are per operation.</summary>
    public double Operations { get; init; } = 1;
    /// <summary>Threads that made each run's calls (the --threads crew; 1 otherwise): every figure but the durations and the GC pause is divided by Operations x this (per call).</summary>
    public int CallingThreads { get; init; } = 1;
    /// <summary>Spread of the measured runs' durations (standard deviation over mean); null below two runs.</summary>
    public double? DurationCv { get; init; }
    public double MaxDurationMs { get; init; }
    public required double MeanDurationMs { get; init; }
    public required double MinDurationMs { get; init; }
    /// <summary>Per call, over the measured runs a CPU source covers (<see cref="RunAnalysis.CpuKnown"/>); 0 when none does (<see cref="CpuKnown"/>).</summary>
    public required double CpuMs { get; init; }
    /// <summary>False when no measured run has a CPU source: the CPU column is missing (`-`), not 0.</summary>
    public bool CpuKnown { get; init; } = true;
    public required double Gen0 { get; init; }
    public required double Gen1 { get; init; }
    public required double Gen2 { get; init; }
    public required double GcPauseMs { get; init; }
    public required double AllocatedBytes { get; init; }
    public required double ReflectionShare { get; init; }
    public required double ActivatorShare { get; init; }
    public required double Exceptions { get; init; }
    public required double ContentionMs { get; init; }
    public required double JitMs { get; init; }
    public required IReadOnlyDictionary<string, double> Tags { get; init; }
    /// <summary>Serialized size from the benchmark's results, when the trace folder has them.</summary>
    public long? SizeBytes { get; init; }
    /// <summary>Kernel session: the worker's mean time off the CPU inside the window, and by reason.</summary>
    public double? OffCpuMs { get; init; }
    public IReadOnlyDictionary<OffCpuReason, double> OffCpuByReason { get; init; } = new Dictionary<OffCpuReason, double>();
    /// <summary>
    /// Kernel session: the CPU of the process's other threads inside the windows (background GC, JIT, finalizer, the
    /// tracer's threads, the rest), per call, and by role; null when unknown (EventPipe alone).
    /// </summary>
    public double? OtherThreadsCpuMs { get; init; }
    public IReadOnlyDictionary<ThreadRole, double> OtherThreadsByRole { get; init; } = new Dictionary<ThreadRole, double>();
    /// <summary>The other threads' share of the process's CPU in the measured runs' windows (theirs over theirs plus the workers').</summary>
    public double? OtherThreadsShare { get; init; }
    /// <summary>Share of CPU time by the innermost managed frame's code tier (kernel or EventPipe samples).</summary>
    public IReadOnlyDictionary<CodeTier, double> TierShares { get; init; } = new Dictionary<CodeTier, double>();
    /// <summary>Share of the measured runs' managed CPU in tier-0, instrumented or minopts code (Findings' not-steady-state).</summary>
    public double? UnoptimizedShare { get; init; }
    /// <summary>The benchmark's round-trip verdict for this case (results.json), when there: a MISMATCH is not ranked.</summary>
    public string? RoundTrip { get; init; }

    /// <summary>The benchmark's own thread CPU clock for the same runs (in-process truth; every thread's for --threads, <see cref="CpuClockAgreement.ThreadClockMs"/>), per call, when results.json is there.</summary>
    public double? InProcessCpuMs { get; init; }
    /// <summary>When a kernel session supplied the CPU columns: what EventPipe's sampler said for the same runs.</summary>
    public double? EventPipeCpuMs { get; init; }
    /// <summary>Share of the measured runs' CPU whose innermost frame has no name (stripped native code); null without CPU.</summary>
    public double? UnnamedShare { get; init; }
    /// <summary>The part of it the trace's events do not explain either (no GC pause, JIT or type load span, not a stub): docs/analyzer.md "Native runtime".</summary>
    public double? UnexplainedShare { get; init; }
    public double? EventPipeReflectionShare { get; init; }
    /// <summary>EventPipe samples of the measured runs whose leaf is a GC-poll helper (safe-point bias), as a share.</summary>
    public double? GcPollLeafShare { get; init; }

    /// <summary>The measured runs the figures are means of: a <see cref="CaseColumn"/> derives its case figure from them.</summary>
    public IReadOnlyList<RunAnalysis> Measured { get; init; } = [];

    /// <summary>
    /// The runs a finding is about, in run order: the measured ones; the outliers when the case has nothing else. Warm-up
    /// runs are left out (one-time costs belong to --test firstcall). A case with only warm-up runs (a recording cut
    /// during its warm-up) has none: its findings would describe the warm-up.
    /// </summary>
    public IReadOnlyList<RunAnalysis> Evidence { get; init; } = [];

    public IReadOnlyList<RunKey> Keys => [.. Evidence.Select(r => r.Key)];

    public double Mean(Func<RunAnalysis, double> value) => Evidence.Count == 0 ? 0 : Evidence.Average(value);

    public double Sum(Func<RunAnalysis, double> value) => Evidence.Sum(value);

    /// <summary>Threads that ran the operation at once (--threads), from results.json; 1 when unknown.</summary>
    public int Threads => Evidence.Select(r => r.InProcess?.Threads ?? 1).DefaultIfEmpty(1).Max();

    public string Describe() => $"{Serializer} {Operation}{EtwSerializerProfiler.Common.Fmt.NSuffix(Objects)}";

    /// <summary>A finding about exactly the evidence's runs; detectors add the frame and evidence with <c>with { }</c>.</summary>
    public Finding FindingOf(string kind, FindingSeverity severity, string message) => new()
    {
        Kind = kind,
        Severity = severity,
        Serializer = Serializer,
        Operation = Operation,
        Objects = Objects == 0 ? null : Objects,
        Runs = Keys,
        Message = message,
    };

    public static IReadOnlyList<CaseSummary> From(IEnumerable<RunAnalysis> runs) =>
        ByCase(runs)
            .Select(all =>
            {
                var first = all[0].Key;
                var measured = all.Where(r => r.IsMeasured).ToList();
                var firstMeasured = measured.Count == 0 ? double.MaxValue : measured.Min(r => r.StartMs);
                var warm = all.Where(r => r.IsWarmup && r.StartMs < firstMeasured).ToList();
                var sampled = measured.Sum(r => r.NonGcSampledMs);
                // The CPU figures' means are over the runs a CPU source covers: a run after a cut kernel session has none.
                var covered = measured.Where(r => r.CpuKnown).ToList();
                // Per operation: a run repeats the call Operations times (the benchmark's pilot sizes runs), and two launches
                // may choose different counts; every per-run figure is divided by it, shares need not be.
                double Mean(Func<RunAnalysis, double> f) => measured.Count == 0 ? 0 : measured.Average(r => f(r) / r.Operations);
                // What the run's threads did (CPU, tags, off-CPU, allocations, GCs, events) per serializer call: with a
                // --threads crew of T a run makes T x Operations calls; the window's clock time (Mean ms, GC pause) is per
                // operation of one thread, T calls at once, as the benchmark's Mean ms is. One thread: the same divisor.
                double PerCall(Func<RunAnalysis, double> f) => measured.Count == 0 ? 0 : measured.Average(r => f(r) / r.Calls);
                return new CaseSummary
                {
                    Serializer = first.Serializer,
                    Operation = first.Operation,
                    Objects = first.Objects,
                    Runs = measured.Count,
                    Measured = measured,
                    Evidence = measured.Count > 0 ? [.. measured.OrderBy(r => r.Key.Run)] : [.. all.Where(r => !r.IsWarmup).OrderBy(r => r.Key.Run)],
                    WarmupDurationMs = warm.Count == 0 ? null : warm.Max(r => r.EndMs) - warm.Min(r => r.StartMs),
                    WarmupRuns = all.Count(r => r.IsWarmup),
                    Operations = measured.Count == 0 ? 1 : measured.Average(r => r.Operations),
                    CallingThreads = measured.Count == 0 ? 1 : measured.Max(r => r.CallingThreads),
                    MeanDurationMs = Mean(r => r.ResultMs),
                    MinDurationMs = measured.Count == 0 ? 0 : measured.Min(r => r.ResultMs / r.Operations),
                    MaxDurationMs = measured.Count == 0 ? 0 : measured.Max(r => r.ResultMs / r.Operations),
                    DurationCv = Cv(measured.Select(r => r.ResultMs / r.Operations).ToList()),
                    CpuMs = covered.Count == 0 ? 0 : covered.Average(r => r.CpuMs / r.Calls),
                    // No measured run (a recording cut during warm-up) has no CPU figure either: missing, not 0.
                    CpuKnown = measured.Any(r => r.CpuKnown),
                    Gen0 = PerCall(r => r.Gen0),
                    Gen1 = PerCall(r => r.Gen1),
                    Gen2 = PerCall(r => r.Gen2),
                    GcPauseMs = Mean(r => r.GcPauseMs),
                    AllocatedBytes = PerCall(r => r.Counters.AllocatedBytes),
                    ReflectionShare = sampled == 0 ? 0 : measured.Sum(r => r.TagMs("Reflection")) / sampled,
                    ActivatorShare = sampled == 0 ? 0 : measured.Sum(r => r.TagMs("Activator")) / sampled,
                    Exceptions = PerCall(r => r.Counters.Exceptions),
                    ContentionMs = PerCall(r => r.Counters.ContentionMs),
                    JitMs = PerCall(r => r.Counters.JitMs),
                    Tags = MeanByKey(covered, r => r.Tags),
                    SizeBytes = all.Select(r => r.InProcess?.SizeBytes).FirstOrDefault(s => s > 0),
                    RoundTrip = all.Select(r => r.InProcess?.Verification).FirstOrDefault(v => v is not null),
                    OffCpuMs = covered.Any(r => r.OffCpuMs.Count > 0) ? covered.Average(r => r.OffCpuMs.Values.Sum() / r.Calls) : null,
                    OffCpuByReason = MeanByKey(covered, r => r.OffCpuMs),
                    OtherThreadsCpuMs = OtherThreads(covered) ? covered.Average(r => r.OtherThreadsCpuMs!.Value / r.Calls) : null,
                    OtherThreadsByRole = OtherThreads(covered) ? MeanByKey(covered, r => r.OtherThreadsCpu) : new Dictionary<ThreadRole, double>(),
                    OtherThreadsShare = OtherThreads(covered) && covered.Sum(r => r.ProcessCpuMs!.Value) is var process and > 0 ? covered.Sum(r => r.OtherThreadsCpuMs!.Value) / process : null,

                    TierShares = Shares(measured),
                    UnoptimizedShare = CodeTiers.UnoptimizedShare(measured),
                    InProcessCpuMs = measured.Count > 0 && measured.All(r => CpuClockAgreement.ThreadClockMs(r) is not null) ? measured.Average(r => CpuClockAgreement.ThreadClockMs(r)!.Value / r.Calls) : null,
                    UnnamedShare = measured.Sum(r => r.CpuMs) is var cpu and > 0 ? measured.Sum(r => r.UnnamedLeafMs) / cpu : null,
                    UnexplainedShare = measured.Sum(r => r.CpuMs) is var cpuMs and > 0 ? measured.Sum(r => r.UnexplainedLeafMs) / cpuMs : null,
                    EventPipeCpuMs = measured.Count > 0 && measured.All(r => r.EventPipeCpu is not null) ? measured.Average(r => r.EventPipeCpu!.CpuMs / r.Calls) : null,
                    EventPipeReflectionShare = measured.Count > 0 && measured.All(r => r.EventPipeCpu is not null) && measured.Sum(r => r.EventPipeCpu!.NonGcMs) is var ep and > 0
                        ? measured.Sum(r => r.EventPipeCpu!.TagMs("Reflection")) / ep : null,
                    GcPollLeafShare = PollShare(measured),
                };
            })
            .OrderBy(s => OperationOrder(s.Operation)).ThenBy(s => s.Objects).ThenBy(s => s.MeanDurationMs)
            .ToList();

    /// <summary>The runs by case (serializer, operation and N), cases and runs in first-seen order.</summary>
    private static List<List<RunAnalysis>> ByCase(IEnumerable<RunAnalysis> runs) => Collections.FirstSeenGroups.Of(runs,
        run => string.Concat(run.Key.Serializer, "\0", run.Key.Operation, "\0", run.Key.Objects.ToString(System.Globalization.CultureInfo.InvariantCulture)));

    /// <summary>Whether every run has its other threads' CPU (a kernel session with switches): else the figure is unknown.</summary>
    private static bool OtherThreads(List<RunAnalysis> runs) => runs.Count > 0 && runs.All(r => r.OtherThreadsCpuMs is not null);

    /// <summary>Per call, by key, the largest first (ties in first-seen order).</summary>
    private static Dictionary<TKey, double> MeanByKey<TKey>(List<RunAnalysis> runs, Func<RunAnalysis, IReadOnlyDictionary<TKey, double>> values) where TKey : notnull
    {
        var sums = SumByKey(runs, values);
        var calls = Math.Max(1, runs.Sum(r => r.Calls));
        var means = new Dictionary<TKey, double>(sums.Keys.Count);
        foreach (var key in Collections.LargestFirst.Of(sums.Keys, key => sums[key])) means[key] = sums[key] / calls;
        return means;
    }

    /// <summary>Each key's values summed in run order, the keys in first-seen order.</summary>
    private static Collections.KeyedSums<TKey> SumByKey<TKey>(List<RunAnalysis> runs, Func<RunAnalysis, IReadOnlyDictionary<TKey, double>> values) where TKey : notnull
    {
        var sums = new Collections.KeyedSums<TKey>();
        foreach (var run in runs)
            foreach (var (key, value) in values(run)) sums.Add(key, value);
        return sums;
    }

    /// <summary>Coefficient of variation (sample standard deviation over mean); null below two runs.</summary>
    private static double? Cv(List<double> values)
    {
        if (values.Count < 2) return null;
        var mean = values.Average();
        return mean <= 0 ? null : Math.Sqrt(values.Sum(v => (v - mean) * (v - mean)) / (values.Count - 1)) / mean;
    }

    private static Dictionary<CodeTier, double> Shares(List<RunAnalysis> runs)
    {
        var total = runs.Sum(r => r.TierMs.Values.Sum() + r.NoTierMs);
        if (total <= 0) return [];
        var sums = SumByKey(runs, r => r.TierMs);
        var shares = new Dictionary<CodeTier, double>(sums.Keys.Count);
        foreach (var key in sums.Keys) shares[key] = sums[key] / total;
        return shares;
    }

    /// <summary>Only EventPipe samples can have a GC-poll leaf: the share is of EventPipe's samples, wherever the columns come from.</summary>
    private static double? PollShare(List<RunAnalysis> runs)
    {
        var samples = runs.Sum(r => r.EventPipeCpu?.Samples ?? r.Samples);
        return samples == 0 ? null : (double)runs.Sum(r => r.GcPollLeafSamples) / samples;
    }

    public static int OperationOrder(string op) => op switch { "serialize" => 0, "deserialize" => 1, "firstcall" => 2, _ => 3 };
}
