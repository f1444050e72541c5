using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Recorder;
using EtwSerializerProfiler.Recorder.Kernel;
using EtwSerializerProfiler.Recorder.Profiles;
using EtwSerializerProfiler.Tests.Support;
using Xunit.Abstractions;

namespace EtwSerializerProfiler.Tests.EndToEnd;

/// <summary>
/// The Linux kernel session of the shared recording (perf beside EventPipe, the default on Linux) against what the
/// benchmark measured in-process: the worker's thread CPU clock per run, and RunBegin/RunEnd for the windows.
/// </summary>
[EndToEnd]
[Collection(RecordedBenchmarkCollection.Name)]
public sealed class KernelSessionTruthTests(RecordedBenchmark recorded, ITestOutputHelper output)
{
    private IReadOnlyList<RunAnalysis> Runs => recorded.Analysis.Runs;

    [Fact]
    public void The_kernel_session_records_the_profiles_events_on_EventPipes_clock()
    {
        var manifest = TraceManifest.Load(recorded.Folder.Manifest);
        var kernel = manifest.Kernel ?? throw new InvalidOperationException("no kernel section in the manifest");
        Assert.True(kernel.Status == KernelSessionInfo.Recorded, $"kernel session not recorded: {kernel.Reason} (is linux-perf installed? scripts/test.sh installs it)");
        Assert.Equal([PerfRecording.CpuClock, PerfRecording.SchedSwitch, PerfRecording.SchedWaking], kernel.Events.Select(e => e.Split('/')[0]));
        Assert.Equal("CLOCK_MONOTONIC", kernel.Clock);
        // The tracer's own CPU, from the OS's clocks of its processes: some, and no more than the machine had.
        var tracer = recorded.Analysis.Trace.TracerCpu ?? throw new InvalidOperationException("no tracer CPU in the analysis");
        Assert.Equal(manifest.RecorderCpuSeconds, tracer.RecorderSeconds);
        Assert.Equal(kernel.PerfCpuSeconds, tracer.PerfSeconds);
        Assert.True(tracer.RecorderSeconds > 0 && tracer.PerfSeconds > 0, tracer.Line());
        Assert.True(tracer.RecorderSeconds + tracer.PerfSeconds!.Value <= tracer.RecordingSeconds * Environment.ProcessorCount, tracer.Line());
        Assert.Contains(tracer.Line(), AnalysisReport.TraceNotes(recorded.Analysis));
        // The hypervisor's steal while perf recorded: this kernel's /proc/stat has the column, so the manifest says it.
        Assert.True(kernel.HostStealMs is >= 0, "no kernel.hostStealMs in the manifest");
        Assert.True(File.Exists(recorded.Folder.KernelData) && File.Exists(recorded.Folder.KernelScript));
        // The fixture asked for EventPipe's sampler too (--eventpipe-samples on): the tables use the kernel's samples
        // and keep EventPipe's beside them, so the sources can be compared run by run.
        Assert.Contains(manifest.Providers, p => p.Name == "Microsoft-DotNETCore-SampleProfiler");
        Assert.All(Runs, r => Assert.NotNull(r.EventPipeCpu));

        var trace = recorded.Analysis.Trace;
        Assert.Equal(CpuSourceKind.Perf, trace.CpuSource);
        Assert.NotNull(trace.Kernel);
        Assert.Equal(0, trace.Kernel!.LostEvents);
        Assert.Equal(0, trace.Kernel.UnreadableLines);
        // The default profile samples every 2 ms on a virtual machine, every 1 ms on bare metal (CpuSampling): the
        // samples' own spacing says which, not the manifest.
        var intervalMs = CpuSampling.Resolve(ProfileCatalog.Get("default"), null, Hypervisor.Present()).Profile.CpuSamplingMs;
        Assert.InRange(trace.ObservedSampleIntervalMs ?? 0, 0.9 * intervalMs, 1.15 * intervalMs);
        Assert.True(trace.Kernel.ManagedMethodsMapped > 1000, $"only {trace.Kernel.ManagedMethodsMapped} methods named from the EventPipe trace");
    }

    [Fact]
    public void Kernel_CPU_of_runs_of_20_ms_or_more_agrees_with_the_thread_CPU_clock_or_says_how_far_off_it_reads()
    {
        // The run's CPU is the worker's on-CPU time from its context switches; its samples (counted below too) split
        // it between tags. Both against the thread CPU clock the benchmark read around the same call.
        // With both cores busy the switches used to read low, never high (CI: 24.31 vs 25.71 ms, 5.4%; 13 of 15 runs
        // within the bound, every run 0.8-5.3% below): stretches ran from perf's IN record to the sched_switch
        // tracepoint, which fires before the hand-over perf's IN record comes after, 15.6 µs short per switch-in.
        // Both edges now come from perf's records (SwitchCpuTime); with four `yes` on two cores every run read
        // 0.3-2.2% below (before: 1.3-3.4%). The bounds: seven runs in ten within 5% or 1 ms (<see cref="Required"/>), every
        // run but one within 10% or 2 ms (that one within half again), and the runs' sum within 3% of the clock's, where
        // the cpu-bias finding would warn (docs/analyzer.md#accuracy-against-independent-truth).
        // A host that slows its guests can set perf's clock and the thread clock apart for a while: a clean-clone CI run
        // read every run 0.5-12% low (System.Text.Json deserialize 103.37 ms against 108.94), nothing of ours running.
        // Then the tool must say so, and by how much: the cpu-bias finding. The runs are then held to the clock scaled by
        // that bias (their split between runs still right), and the bias to twice the worst seen.
        var check = CpuClockAgreement.Of(Runs)!.Value;
        output.WriteLine($"all runs: {check.TraceMs:F2} ms against the clock's {check.ClockMs:F2} ms ({check.Bias:P1})");
        var thresholds = EtwSerializerProfiler.Analyzer.Findings.FindingThresholds.Default;
        var steal = ThreadClockBounds.StealMs(recorded.Folder.Path);
        var biased = Math.Abs(check.Bias) > thresholds.MaxCpuClockBias && Math.Abs(check.TraceMs - check.ClockMs) > thresholds.MinCpuClockBiasMs;
        if (biased)
        {
            // Above the clock, also by the steal the recording measured (here: 10.2% high, 1,544.77 ms against 1,401.22).
            Assert.True(Math.Abs(check.TraceMs - check.ClockMs) <= MaxHostBias * check.ClockMs + ThreadClockBounds.Stolen(check.TraceMs, check.ClockMs, steal),
                $"the runs' on-CPU time is {check.Bias:P1} off the thread CPU clock's (steal {steal:F0} ms)");
            var finding = Assert.Single(recorded.Analysis.Findings, f => f.Kind == EtwSerializerProfiler.Analyzer.Findings.FindingKinds.CpuBias);
            Assert.Contains(FormattableString.Invariant($"{Math.Abs(check.Bias) * 100:F1}% {(check.Bias < 0 ? "low" : "high")}"), finding.Message, StringComparison.Ordinal);
        }
        // A bias the steal explains is no clock apart: the runs are held to the clock itself, the steal allowed above it
        // (here: 35.1% high with 3.2 s of steal; scaled, the runs the steal missed read a quarter low).
        var scale = biased && !check.ExplainedBySteal(steal) ? 1 + check.Bias : 1;
        CheckCpu(Runs, r => r.CpuMs / scale, "on-CPU from switches", tolerance: t => Math.Max(0.05 * t, 1.0), required: Required, outer: t => Math.Max(0.10 * t, 2.0));
        // Samples alone, each worth one period: as close in almost every run; on a loaded virtual machine the sampling
        // timer now and then fires late and loses periods (seen: 4-17% short in 7 of 193 runs).
        // A run's samples are whole, and the timer jitters under load: within 5% or two periods (a period is 2 ms on a
        // virtual machine: CpuSampling). At load 34, 4 of 15 runs were 1.1 to 1.7 periods off (58.03 ms against 54.79).
        var period = recorded.Analysis.Trace.Kernel!.SamplePeriodMs;
        CheckCpu(Runs, r => r.Samples * period / scale, "sampled", tolerance: t => Math.Max(0.05 * t, Math.Max(1.0, 2 * period)), required: Required);
    }

    /// <summary>
    /// Runs within the tight bound, as a share of those checked. Under load about one run in ten falls outside (seen: 3
    /// of 14 sampled in a clean-clone CI run on a slowed host, 4 of 15 at load 34). At that rate, 10 of 14 fail one
    /// recording in a hundred (binomial), 12 of 14 (the share this was before) one in six; a wrong window or a
    /// double-counted source puts most runs outside.
    /// </summary>
    private const double Required = 0.7;

    /// <summary>The most the CPU column may read off the thread clock in sum, with the cpu-bias finding saying so: twice the 5% seen.</summary>
    private const double MaxHostBias = 0.10;

    private void CheckCpu(IReadOnlyList<RunAnalysis> runs, Func<RunAnalysis, double> cpu, string what, Func<double, double> tolerance, double required, Func<double, double>? outer = null)
    {
        var checkedRuns = 0;
        var within = 0;
        var beyond = new List<string>();
        var high = new List<double>();
        var stealMs = ThreadClockBounds.StealMs(recorded.Folder.Path);
        foreach (var run in runs)
        {
            var truth = run.InProcess!.CpuMs;
            output.WriteLine($"{run.Key}: {what} {cpu(run):F2} ms, thread CPU clock {truth:F2} ms, {run.Samples} samples");
            if (truth < 20) continue;
            checkedRuns++;
            if (Math.Abs(cpu(run) - truth) <= tolerance(truth)) within++;
            else if (cpu(run) > truth) high.Add(cpu(run) - truth);
            // Above the clock by more: only as far as the hypervisor's steal while perf recorded (the manifest's
            // kernel.hostStealMs), which switches count and the clock does not. Seen in a CI run at load average 5:
            // Google.Protobuf deserialize 30.72 ms from switches against 27.57 on the clock, every other run within 6%.
            // And with no steal reported, in a CI run with a core kept busy: 36.69 against 33.33 ms (+10.1%), the
            // other 12 runs within 1.6%. So one run may reach half again the bound, never more, and only one.
            var steal = ThreadClockBounds.Stolen(cpu(run), truth, stealMs);
            var off = Math.Abs(cpu(run) - truth);
            if (outer is not null && off > outer(truth) + steal)
            {
                var line = $"{run.Key}: {what} {cpu(run):F2} ms against the thread CPU clock's {truth:F2} ms (steal while recording: {stealMs:F0} ms)";
                Assert.True(off <= 1.5 * outer(truth) + steal, line);
                beyond.Add(line);
            }
        }
        Assert.True(beyond.Count <= 1, string.Join("; ", beyond));
        // Runs above their bound count as within while their excess adds up to no more than the steal (as MarkedAppTests).
        if (high.Sum() <= stealMs) within += high.Count;
        Assert.True(checkedRuns >= 6, $"only {checkedRuns} runs of 20 ms or more: the fixture no longer exercises the comparison");
        Assert.True(within >= required * checkedRuns, $"{what}: {within} of {checkedRuns} runs within their bound of the thread CPU clock");
    }

    [Fact]
    public void Marker_windows_from_context_switches_agree_with_RunBegin_and_RunEnd()
    {
        // The marker switches out into its run wait just before the worker's RunBegin and is woken (sched_waking, in
        // the worker's context) just after RunEnd: on an idle machine both within a tenth of a millisecond, the median
        // within a millisecond even when the machine is loaded well beyond its cores. On a
        // loaded one the worker, woken by the marker's "armed" signal, may wait for a CPU before RunBegin, so the start
        // may lead by milliseconds; the end cannot lag (the worker itself wakes the marker), nor the typical run.
        var starts = new List<double>();
        var ends = new List<double>();
        foreach (var run in Runs)
        {
            Assert.True(run.SwitchWaitStartMs is not null, $"{run.Key}: no marker wait found in the context switches");
            // The events' own times: a window pinned to the Stopwatch's reads sits inside them, by the event writes.
            var (begin, end) = run.EventEdgesMs ?? (run.StartMs, run.EndMs);
            starts.Add(Math.Abs(run.SwitchWaitStartMs!.Value - begin));
            ends.Add(Math.Abs(run.SwitchWaitEndMs!.Value - end));
            output.WriteLine($"{run.Key}: switch window {run.SwitchWaitStartMs:F3}..{run.SwitchWaitEndMs:F3}, RunBegin/RunEnd {begin:F3}..{end:F3}: start {starts[^1]:F3} ms, end {ends[^1]:F3} ms");
        }
        var both = starts.Zip(ends, Math.Max).Order().ToList();
        // Median: 0.02-0.05 ms idle; 0.157 ms with both cores kept busy by other processes (CI on a shared machine);
        // 0.726 ms at load average 10-12 on two cores. A window taken from the wrong wait would be off by a whole run
        // or a scheduler quantum (several milliseconds), so 1 ms still tells the two apart.
        Assert.True(both[both.Count / 2] <= 1.0, $"median disagreement {both[both.Count / 2]:F3} ms");
        Assert.True(ends.Count(d => d <= 1.0) >= 0.9 * ends.Count, $"{ends.Count(d => d <= 1.0)} of {ends.Count} run ends within 1 ms");
        // Starts: half within 1 ms. Seen 11 of 18 (61%) in CI with both cores busy, the rest leading by 1.1-3.7 ms
        // while the worker waited for a CPU; the ends and the median stayed within their bounds.
        Assert.True(starts.Count(d => d <= 1.0) >= 0.5 * starts.Count, $"{starts.Count(d => d <= 1.0)} of {starts.Count} run starts within 1 ms");
        Assert.Equal(Runs.Count, recorded.Analysis.Trace.Kernel!.RunsWithSwitchWindow);
    }

    [Fact]
    public void On_and_off_CPU_time_account_for_each_runs_wall_time()
    {
        // On-CPU is counted in whole sample periods, off-CPU exactly from switch-out to switch-in: together they are
        // the window, give or take a period at each end and one per run for the stretch in progress at a window edge.
        foreach (var run in Runs)
        {
            var offCpu = run.OffCpuMs.Values.Sum();
            var accounted = run.CpuMs + offCpu;
            var tolerance = Math.Max(2 * recorded.Analysis.Trace.Kernel!.SamplePeriodMs + 0.5, 0.05 * run.DurationMs);
            output.WriteLine($"{run.Key}: wall {run.DurationMs:F2} ms = on-CPU {run.CpuMs:F2} + off-CPU {offCpu:F2} ({string.Join(", ", run.OffCpuMs.Select(o => $"{o.Key} {o.Value:F2}"))})");
            Assert.True(Math.Abs(accounted - run.DurationMs) <= tolerance, $"{run.Key}: on {run.CpuMs:F2} + off {offCpu:F2} = {accounted:F2} ms vs wall {run.DurationMs:F2} ms");
        }
    }
}
