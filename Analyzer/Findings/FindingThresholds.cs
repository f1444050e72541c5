namespace EtwSerializerProfiler.Analyzer.Findings;

/// <summary>
/// Every threshold of every detector, in one place so that docs/findings.md can list them and a test can change
/// them. The defaults were chosen from measurements on .NET 10 (docs/findings.md has the numbers): far enough from
/// the clean serializers (Google.Protobuf, System.Text.Json.SourceGen) that a loaded 2-core machine does not flip them.
/// </summary>
internal sealed record FindingThresholds
{
    public static FindingThresholds Default { get; } = new();

    /// <summary>Exceptions per measured run at or above which a serializer's runs are reported at all.</summary>
    public double MinExceptionsPerRun { get; init; } = 1;

    /// <summary>Exceptions per measured run at or above which the finding is a warning: an exception-driven path, not a one-off.</summary>
    public double WarningExceptionsPerRun { get; init; } = 100;

    /// <summary>
    /// Lock wait time (summed over threads) as a share of the run's wall-clock time. Contention events fire only
    /// after spinning failed; with 64 threads clean serializers measured 0-0.002 ms per run and ServiceStack.Text's
    /// buffer-pool lock 0.08-0.65 ms (2-25% of the run).
    /// </summary>
    public double MinContentionShare { get; init; } = 0.01;

    /// <summary>Mean lock wait per measured run; below it, a handful of microsecond waits are not worth a line.</summary>
    public double MinContentionMs { get; init; } = 0.05;

    /// <summary>A first call (--test firstcall) at least this long is reported, with how much of it was JIT.</summary>
    public double MinFirstCallMs { get; init; } = 50;

    /// <summary>JIT share of a first call from which the finding says "dominated by JIT" (ReadyToRun helps).</summary>
    public double FirstCallJitDominantShare { get; init; } = 0.3;

    /// <summary>
    /// Share of on-CPU time (kernel session; sampled managed time without one) under the Reflection\* and
    /// Activator\* stack tags, GC left out. Measured with the kernel session (docs/findings.md): generated-code
    /// serializers 0-1%, the Reflection baseline's deserialize 11-14% (its cost is allocation and GC), reflection
    /// fallbacks without dynamic code 23-50%.
    /// </summary>
    public double MinReflectionShare { get; init; } = 0.2;

    /// <summary>
    /// The CPU column's sum against the thread CPU clock's over the measured runs, either way. Measured: the kernel
    /// session within 0.0-0.9% (2.2% on the golden recording with one unexplained run), EventPipe's sampler +16.6%
    /// idle and +149% with both cores busy (docs/analyzer.md#cpu-against-the-thread-clock).
    /// </summary>
    public double MaxCpuClockBias { get; init; } = 0.03;

    /// <summary>
    /// The least the CPU column's sum must be off the clock's, in ms, for <see cref="MaxCpuClockBias"/> to count: a
    /// run's window edges are worth tenths of a ms (one 7 ms first call read 7.3 ms against 7.0 in a CI run).
    /// </summary>
    public double MinCpuClockBiasMs { get; init; } = 1.0;

    /// <summary>
    /// Share of measured runs' managed CPU in tier-0, instrumented or minimal-optimization code from which they are
    /// "not at steady state". After the benchmark's warm-up, measured: under 5% for every serializer at N=10,000.
    /// </summary>
    public double MaxUnoptimizedShare { get; init; } = 0.1;

    /// <summary>Sampled ms (all measured runs of a group together) needed before a share means anything.</summary>
    public double MinSampledMs { get; init; } = 5;

    /// <summary>GC pause as a share of the run's duration.</summary>
    public double MinGcPauseShare { get; init; } = 0.25;

    /// <summary>Mean GC pause per measured run; a single short gen0 GC in a tiny run is no finding.</summary>
    public double MinGcPauseMs { get; init; } = 5;

    /// <summary>
    /// Mean collections started per measured run: a pause that only spills over from a GC started before the run
    /// (pauses are clipped to run windows) does not make the run GC-bound.
    /// </summary>
    public double MinGcsPerRun { get; init; } = 1;

    /// <summary>
    /// Share of the process's CPU inside a case's measured windows that ran outside its workers (kernel session), above
    /// which the other-threads finding names where. Measured (docs/findings.md): a worker alone 2.2%, with a side thread
    /// burning half as much 37.8%; the benchmark at --threads 8 10-17% (tiering still at work), 11-33% with EventPipe's
    /// sampler on (its threads 8-13%) and background GCs.
    /// </summary>
    public double MaxOtherThreadsShare { get; init; } = 0.10;

    /// <summary>Slope of log(time) over log(N) above which time per object grows with N (1 = linear, 2 = quadratic).</summary>
    public double SuperLinearSlope { get; init; } = 1.5;

    /// <summary>Largest N / smallest N needed for a slope: over a narrow range noise dominates.</summary>
    public double MinScalingSpread { get; init; } = 8;

    /// <summary>Distinct object counts needed for a fit.</summary>
    public int MinScalingCounts { get; init; } = 3;

    /// <summary>Time at the largest N below which fixed costs and timer noise decide the slope.</summary>
    public double MinScalingLargestMs { get; init; } = 10;
}
