using EtwSerializerProfiler.Analyzer.Findings;
using EtwSerializerProfiler.Analyzer.Findings.Detectors;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Analyzer.Findings;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>The CPU column against the benchmark's thread CPU clock, on hand-made runs with known answers: the figures, the report's line and the cpu-bias finding.</summary>
public sealed class CpuClockCheckTests
{
    private static RunAnalysis Run(double traceMs, double clockMs, bool warmup = false, int threads = 1, int run = 1) => new()
    {
        Key = new RunKey("S", "serialize", 10, run),
        Cpu = new SampledCpu(traceMs, 0, new Dictionary<string, double>()),
        IsWarmup = warmup,
        InProcess = new RunResult
        {
            Serializer = "S", Operation = "serialize", Data = "D", Objects = 10, Run = run, Warmup = warmup, Threads = threads,
            DurationMs = clockMs * 2, GcCount = new GcCounts(0, 0, 0), GcPauseMs = 0, AllocatedBytes = 0, CpuMs = clockMs,
        },
    };

    [Fact]
    public void Measured_single_thread_runs_of_a_millisecond_or_more_are_compared_in_sum_and_per_run()
    {
        var figures = CpuClockAgreement.Of([
            Run(9, 10), Run(20, 20, run: 2), Run(11, 10, run: 3), Run(33, 30, run: 4),
            Run(50, 10, warmup: true),      // a warm-up: not in any table, not here
            Run(50, 10, threads: 4),        // the process's CPU, read outside the window: another quantity
            Run(0.1, 0.5),                  // under a period
            new RunAnalysis { Key = new RunKey("S", "serialize", 10, 9), Cpu = new SampledCpu(5, 0, new Dictionary<string, double>()) }, // no results.json
        ])!.Value;
        Assert.Equal(4, figures.Runs);
        Assert.Equal((73.0, 70.0), (figures.TraceMs, figures.ClockMs));
        Assert.Equal(3.0 / 70, figures.Bias, 12);
        Assert.Equal(-0.1, figures.Min, 12);
        Assert.Equal(0.1, figures.Max, 12);
        Assert.Equal((0.0 + 0.1) / 2, figures.Median, 12); // -10%, 0%, +10%, +10%: the middle two
        Assert.Equal(0.1, CpuClockAgreement.Of([Run(9, 10), Run(11, 10, run: 2), Run(12, 10, run: 3)])!.Value.Median, 12);
    }

    [Fact]
    public void Without_a_thread_clock_there_is_nothing_to_say()
    {
        Assert.Null(CpuClockAgreement.Of([new RunAnalysis { Key = new RunKey("S", "serialize", 10, 1), Cpu = new SampledCpu(5, 0, new Dictionary<string, double>()) }]));
        Assert.Null(CpuClockCheck.Line([Run(5, 5, warmup: true)]));
        Assert.Empty(SyntheticRuns.Detect(new CpuBiasDetector(), [Run(5, 5, warmup: true)]));
    }

    [Fact]
    public void The_report_line_gives_the_sum_and_the_per_run_spread()
    {
        Assert.Equal("CPU against the benchmark's thread CPU clock (in-process), 2 measured runs of 1 ms or more: -1.3% in all (148.0 ms against 150.0), per run median -1.0%, range -2.0% to 0.0%",
            CpuClockCheck.Line([Run(98, 100), Run(50, 50, run: 2)]));
    }

    [Fact]
    public void A_sum_more_than_3_percent_off_the_clock_is_a_warning_that_says_which_way_and_how_far()
    {
        Assert.Empty(SyntheticRuns.Detect(new CpuBiasDetector(), [Run(98, 100), Run(50, 50, run: 2)]));
        Assert.Empty(SyntheticRuns.Detect(new CpuBiasDetector(), [Run(102.9, 100)]));

        var low = Assert.Single(SyntheticRuns.Detect(new CpuBiasDetector(), [Run(90, 100), Run(5, 5, warmup: true)]));
        Assert.Equal((FindingKinds.CpuBias, FindingSeverity.Warning), (low.Kind, low.Severity));
        Assert.StartsWith("the CPU columns read 10.0% low against the benchmark's thread CPU clock over 1 measured runs (90.0 ms against 100.0", low.Message);
        Assert.Equal([new RunKey("S", "serialize", 10, 1)], low.Runs);
        Assert.Equal(-0.1, low.EvidenceValue("bias")!.Value, 12);

        var high = Assert.Single(SyntheticRuns.Detect(new CpuBiasDetector(), [Run(15, 10)]));
        Assert.Contains("read 50.0% high", high.Message);
        // A stricter threshold catches what the default lets pass.
        Assert.Single(SyntheticRuns.Detect(new CpuBiasDetector(), [Run(98, 100)], FindingThresholds.Default with { MaxCpuClockBias = 0.01 }));
        // A short run's window edges: 4% but 0.3 ms off is not a bias (a CI run's first call, 7.3 ms against 7.0).
        Assert.Empty(SyntheticRuns.Detect(new CpuBiasDetector(), [Run(7.3, 7.0)]));
        Assert.Single(SyntheticRuns.Detect(new CpuBiasDetector(), [Run(7.3, 7.0)], FindingThresholds.Default with { MinCpuClockBiasMs = 0.2 }));
    }

    [Fact]
    public void Reading_high_by_no_more_than_the_hosts_steal_names_the_steal_as_the_cause()
    {
        Finding Under(double stealMs) => Assert.Single(new CpuBiasDetector().Detect(new FindingContext(
            SyntheticRuns.Analysis([Run(16.6, 11.9)]) with { Trace = new TraceInfo { Path = "synthetic", Format = "test", HostStealMs = stealMs } }, null, FindingThresholds.Default)));

        // The CI run that read a 12 ms call 39.6% high while the host took 4.7 ms or more: the steal is the cause.
        var stolen = Under(120);
        Assert.Contains("read 39.5% high", stolen.Message);
        Assert.Contains("the hypervisor took 120 ms of CPU from this machine (steal) while it recorded, enough to explain the excess", stolen.Message);
        Assert.Equal(120, stolen.EvidenceValue("stealMs"));
        // Less steal than the excess: the source's own reason, and no steal evidence.
        var source = Under(4.0);
        Assert.DoesNotContain("steal", source.Message);
        Assert.Null(source.EvidenceValue("stealMs"));
        // Reading low is never the steal's doing.
        var low = Assert.Single(new CpuBiasDetector().Detect(new FindingContext(
            SyntheticRuns.Analysis([Run(9, 11.9)]) with { Trace = new TraceInfo { Path = "synthetic", Format = "test", HostStealMs = 120 } }, null, FindingThresholds.Default)));
        Assert.Null(low.EvidenceValue("stealMs"));
    }
}
