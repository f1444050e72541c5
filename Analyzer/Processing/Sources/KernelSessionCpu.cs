using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Stacks;
using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Samples;

namespace EtwSerializerProfiler.Analyzer.Processing.Sources;

/// <summary>
/// The Linux kernel session (perf), read beside the pass: on-CPU time, one period per sample, managed, native and
/// kernel frames. Its samples are charged chunk by chunk as the session is read (<see cref="KernelChunkPass"/>), and
/// each run and thread is scaled to its on-CPU time from context switches (<see cref="SwitchCpuTime.Walk"/>). It
/// supplies the CPU when the session has samples and the trace has events to put them on its time line.
/// </summary>
internal sealed class KernelSessionCpu : ICpuSource
{
    public static ICpuSource? Open(TraceOpening trace) => new KernelSessionCpu();

    public CpuSourceKind Kind => CpuSourceKind.Perf;

    public string BiasReason => CpuSources.OnCpuBiasReason;

    public bool Supplies(CpuCharge cpu)
    {
        if (cpu.Session is not { HasSamples: true }) return false;
        if (cpu.Timeline.Clock.Known) return true;
        cpu.Analysis.WarningList.Add("kernel session present but the EventPipe trace has no events to align it with: not used");
        return false;
    }

    public CpuPlan Plan(CpuCharge cpu)
    {
        List<RunDraft> runs = [.. cpu.Analysis.Runs];
        // One window per thread of each run: the worker's, then its crew's (--threads), summed per run.
        var switches = new SwitchCpuTime.Walk(cpu.Timeline.Clock, [.. runs.SelectMany(r => RunThreads(r).Select(t => new SwitchCpuTime.Window(t, r.StartMs, r.EndMs)))]);
        // The walk is finished once every chunk is in: the charge asks for the precise totals only then.
        double[]? runMs = null;
        double[] Finished() => runMs ??= switches.Finish();
        var stream = PerfSampleSource.Empty(cpu.Session!.PeriodMs);
        return new CpuPlan(stream)
        {
            ChargedByChunks = true,
            Switches = switches,
            PreciseRunMs = PreciseRunsMs(switches, runs, Finished),
            PreciseThreadsMs = threads =>
            {
                Finished();
                return [.. threads.Select(t => switches.SawSwitchIns ? switches.WholeThreadMs(t.ThreadId, t.FirstMs, t.LastMs, stream.PeriodMs) : null)];
            },
        };
    }

    /// <summary>The threads a run is charged from, in the order their switch windows are made: the worker, then its crew.</summary>
    private static IEnumerable<int> RunThreads(RunDraft run) => [run.WorkerThreadId, .. run.CrewThreadIds];

    /// <summary>
    /// A run's CPU is its threads' on-CPU time from their context switches inside the window (exact where samples
    /// are whole periods and a loaded machine's timer can fire late): the worker's, plus each crew thread's with
    /// --threads (RunThread events). Samples of other threads (a measured call elsewhere) keep the samples' total.
    /// </summary>
    private static Func<RunDraft, double?> PreciseRunsMs(SwitchCpuTime.Walk precise, List<RunDraft> runs, Func<double[]> answers)
    {
        var first = new Dictionary<RunDraft, int>(ReferenceEqualityComparer.Instance);
        var next = 0;
        foreach (var run in runs)
        {
            first.TryAdd(run, next);
            next += 1 + run.CrewThreadIds.Count;
        }
        return run =>
        {
            var all = answers();
            if (!precise.SawSwitchIns || !first.TryGetValue(run, out var at) || !RunThreads(run).All(precise.Knows)) return null;
            var sum = 0.0;
            for (var i = 0; i <= run.CrewThreadIds.Count; i++) sum += all[at + i];
            return sum;
        };
    }

    /// <summary>
    /// A kernel session cut short (perf killed with a killed recorder) says nothing of the runs after its last record:
    /// their CPU is missing, not 0 (a finished session ends after the process's last run).
    /// </summary>
    public void Finish(CpuCharge cpu)
    {
        if (cpu.Session?.Read?.LastNs is not { } lastNs) return;
        var analysis = cpu.Analysis;
        var lastMs = cpu.Timeline.Clock.ToRelativeMs(lastNs);
        foreach (var run in analysis.Runs)
            if (run.EndMs > lastMs) run.CpuKnown = false;
        var cut = analysis.Runs.Count(r => !r.CpuKnown);
        // perf died while the process ran (the manifest says when and how): one line that names it.
        if (cpu.Session.Died is { } died)
            analysis.WarningList.Add($"{died.Describe()}; its records end {lastMs / 1000:F1} s into the trace, " + (cut > 0
                ? $"before the last {cut:N0} run(s): their CPU columns are missing (-), EventPipe's sampler was off beside it"
                : "after every run"));
        else if (cut > 0)
            analysis.WarningList.Add($"the kernel session ends at {lastMs / 1000:F1} s, before the last {cut:N0} run(s): their CPU columns are missing (-)");
    }

    /// <summary>perf's comm: the name the thread gave itself (threads only the kernel saw, native ones, appear too).</summary>
    public string? ThreadName(int threadId, CpuCharge cpu) => cpu.Session?.Read?.ThreadNames.GetValueOrDefault(threadId);

    public void Describe(CpuCharge cpu, SampleCharges charged)
    {
        var analysis = cpu.Analysis;
        var session = cpu.Session!;
        // EventPipe's leaves no longer carry the columns: nothing unresolved in them.
        // --threads runs (RunThread events): their crews are charged too; said only then, so other traces read as before.
        var crews = analysis.Runs.Any(r => r.CrewThreadIds.Count > 0) ? "; with --threads, every crew thread of the run too (per call: docs/analyzer.md#concurrent-runs---threads)" : "";
        analysis.Trace = analysis.Trace with { SamplingSource = KernelSessionAnalysis.SamplingSource(session) + crews, ObservedSampleIntervalMs = session.PeriodMs, UnresolvedSampleShare = 0 };
    }
}
