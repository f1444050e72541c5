using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Samples;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>
    /// CPU: one source is chosen per trace (the kernel session where it has samples, else ETW's profile interrupts,
    /// else EventPipe's sampler) and charged by <see cref="SampleCharger"/>; EventPipe's samples, when another source
    /// supplies the columns, are charged the same way into <see cref="RunDraft.EventPipeCpu"/> to show its bias.
    /// </summary>
    private sealed partial class PassState
    {
        private SampleCharges? _cpu;

        /// <remarks>
        /// The kernel session's records are taken chunk by chunk here (<see cref="KernelChunkPass"/>): its samples
        /// charged, its switches walked for the precise on-CPU time and the off-CPU reasons, the marker's windows
        /// found, each chunk dropped once every stage has read it. The runs' windows and the time line are final here.
        /// </remarks>
        private void ChargeCpu(KernelSession? session)
        {
            var pauses = new GcPauses(GcPauseList);
            var eventPipe = EventPipeStream();
            var clockKnown = Timeline.Clock.Known;
            if (session is { HasSamples: true } && !clockKnown)
                analysis.WarningList.Add("kernel session present but the EventPipe trace has no events to align it with: not used");
            var perf = session is { HasSamples: true } && clockKnown;
            SampleStream primary;
            if (perf) primary = PerfSampleSource.Empty(session!.PeriodMs);
            else if (etw) primary = EtwSampleSource.Stream(_etwSamples, eventPipe.Stacks, kernelSampleMs, pauses);
            else primary = eventPipe;

            List<RunDraft> runs = [.. analysis.Runs];
            // Precise on-CPU time only where the kernel's samples are the CPU source: nothing else asks for it.
            // One window per thread of each run: the worker's, then its crew's (--threads), summed per run.
            var switches = perf ? new SwitchCpuTime.Walk(Timeline.Clock, [.. runs.SelectMany(r => RunThreads(r).Select(t => new SwitchCpuTime.Window(t, r.StartMs, r.EndMs)))]) : null;
            double[]? runMs = null;
            // Kept beside the columns: what EventPipe's safe-point sampler said of the same runs. Charged on the
            // other core while the primary source is: the two share only the stack tag matcher, which is thread-safe.
            var bias = primary.Kind == CpuSourceKind.Perf ? Task.Run(() => new SampleCharger(eventPipe, Matcher, pauses) { KeepLedger = false }.Charge(analysis.Runs)) : null;
            var charger = new SampleCharger(primary, Matcher, pauses)
            {
                Work = _runtimeWork.Build(),
                KeepLedger = options.KeepChargedSamples,
                WholeTraceHotMethods = options.CollectHotMethods,
                PreciseRunMs = perf ? PreciseRunsMs(switches!, runs, () => runMs!) : null,
                PreciseThreadsMs = perf ? threads => PreciseThreadsMs(switches!, threads, primary.PeriodMs) : null,
            };
            _cpu = Common.Beside.Join(bias, () =>
            {
                var charging = charger.Begin(analysis.Runs);
                if (!perf) charging.Add(primary);
                if (session is not null)
                {
                    progress?.Report($"charging the kernel session ({Path.GetFileName(session.File)}) as it is read, {options.KernelRecordsPerChunk:N0} records at a time...");
                    session.Read = KernelChunkPass.Read(session, Timeline, pauses, Matcher?.File, perf ? charging : null, switches,
                        clockKnown ? new OffCpuClassifier(runs, Timeline, pauses) : null, clockKnown ? new KernelMarkerWindows(Timeline) : null);
                }
                runMs = switches?.Finish();
                return charging.Finish();
            });
            if (bias is not null) WriteEventPipeBias(bias.Result);
            WriteRuns(_cpu);
            if (perf) MarkRunsAfterTheKernelSession(session!);
            WriteThreads(_cpu, session);
            if (options.KeepChargedSamples) analysis.Samples = new SampleLedger<RunDraft>(primary.Kind, _cpu.Ledger, analysis.Runs.Count == 0 ? _cpu.ThreadLedger : [],
                [.. pauses.All.Select(p => new PauseWindow(p.StartMs, p.EndMs))], primary.PeriodMs);
            DescribeSource(primary, session);
        }

        /// <summary>
        /// A kernel session cut short (perf killed with a killed recorder) says nothing of the runs after its last record:
        /// their CPU is missing, not 0 (a finished session ends after the process's last run).
        /// </summary>
        private void MarkRunsAfterTheKernelSession(KernelSession session)
        {
            if (session.Read?.LastNs is not { } lastNs) return;
            var lastMs = Timeline.Clock.ToRelativeMs(lastNs);
            foreach (var run in analysis.Runs)
                if (run.EndMs > lastMs) run.CpuKnown = false;
            var cut = analysis.Runs.Count(r => !r.CpuKnown);
            // perf died while the process ran (the manifest says when and how): one line that names it.
            if (KernelDied is { } died)
                analysis.WarningList.Add($"{died.Describe()}; its records end {lastMs / 1000:F1} s into the trace, " + (cut > 0
                    ? $"before the last {cut:N0} run(s): their CPU columns are missing (-), EventPipe's sampler was off beside it"
                    : "after every run"));
            else if (cut > 0)
                analysis.WarningList.Add($"the kernel session ends at {lastMs / 1000:F1} s, before the last {cut:N0} run(s): their CPU columns are missing (-)");
        }

        private void WriteEventPipeBias(SampleCharges sampled)
        {
            foreach (var run in analysis.Runs)
            {
                var a = sampled.Of(run);
                run.EventPipeCpu = new SampledCpu(a?.CpuMs ?? 0, a?.Samples ?? 0, new Dictionary<string, double>(a?.Tags ?? [], StringComparer.Ordinal));
                run.GcPollLeafSamples = a?.GcPollLeafSamples ?? 0;
            }
        }

        private SampleStream EventPipeStream()
        {
            return new(CpuSourceKind.EventPipe, _eventPipeSamples, stacks, 0);
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
                if (!precise.SawSwitchIns || !first.TryGetValue(run, out var at) || !RunThreads(run).All(precise.Knows)) return null;
                var all = answers();
                var sum = 0.0;
                for (var i = 0; i <= run.CrewThreadIds.Count; i++) sum += all[at + i];
                return sum;
            };
        }

        /// <summary>Each thread's on-CPU time over the whole trace (<see cref="SwitchCpuTime.Walk.WholeThreadMs"/>); null for a thread without switches.</summary>
        private static double?[] PreciseThreadsMs(SwitchCpuTime.Walk precise, IReadOnlyList<(int ThreadId, double FirstMs, double LastMs)> threads, double periodMs) =>
            [.. threads.Select(t => precise.SawSwitchIns ? precise.WholeThreadMs(t.ThreadId, t.FirstMs, t.LastMs, periodMs) : null)];

        private void WriteRuns(SampleCharges cpu)
        {
            foreach (var run in analysis.Runs)
            {
                run.TagTable.Clear();
                run.TierTable.Clear();
                if (cpu.Of(run) is not { } a)
                {
                    run.CpuMs = 0;
                    run.Samples = 0;
                    run.NoTierMs = 0;
                    run.UnnamedLeafMs = 0;
                    run.UnexplainedLeafMs = 0;
                    continue;
                }
                run.CpuMs = a.CpuMs;
                run.Samples = a.Samples;
                foreach (var (tag, ms) in a.Tags) run.TagTable[tag] = ms;
                foreach (var (tier, ms) in a.TierMs) run.TierTable[tier] = ms;
                run.NoTierMs = a.NoTierMs;
                run.UnnamedLeafMs = a.UnnamedLeafMs;
                run.UnexplainedLeafMs = a.UnexplainedLeafMs;
                if (cpu.Kind == CpuSourceKind.EventPipe) run.GcPollLeafSamples = a.GcPollLeafSamples;
            }
        }

        /// <summary>Each thread's whole-trace CPU; threads only the kernel saw (native ones) appear, named as perf saw them.</summary>
        private void WriteThreads(SampleCharges cpu, KernelSession? session)
        {
            foreach (var (id, a) in cpu.Threads)
            {
                if (!_threads.TryGetValue(id, out var t)) _threads[id] = t = new ThreadDraft { ThreadId = id };
                t.CpuMs = a.CpuMs;
                t.Samples = a.Samples;
                t.TagTable.Clear();
                foreach (var (tag, ms) in a.Tags) t.TagTable[tag] = ms;
                if (cpu.Kind == CpuSourceKind.Perf) t.Name ??= session?.Read?.ThreadNames.GetValueOrDefault(id); // perf's comm: the name the thread gave itself
            }
        }

        private void DescribeSource(SampleStream primary, KernelSession? session)
        {
            var trace = analysis.Trace with { CpuSource = primary.Kind, TypeLoadEvents = _sawTypeLoads };
            if (primary.Kind == CpuSourceKind.Perf && session is not null)
            {
                // EventPipe's leaves no longer carry the columns: nothing unresolved in them.
                // --threads runs (RunThread events): their crews are charged too; said only then, so other traces read as before.
                var crews = analysis.Runs.Any(r => r.CrewThreadIds.Count > 0) ? "; with --threads, every crew thread of the run too (per call: docs/analyzer.md#concurrent-runs---threads)" : "";
                analysis.Trace = trace with { SamplingSource = KernelSessionAnalysis.SamplingSource(session) + crews, ObservedSampleIntervalMs = primary.PeriodMs, UnresolvedSampleShare = 0 };
                return;
            }
            analysis.Trace = trace with
            {
                ObservedSampleIntervalMs = etw ? (_samples > 0 ? kernelSampleMs : null) : _weigher.ObservedIntervalMs,
                UnresolvedSampleShare = _samples == 0 ? 0 : (double)_cpu!.UnnamedLeafRunSamples / _samples,
            };
            if (_samples == 0)
                foreach (var run in analysis.Runs) run.CpuKnown = false;
            if (_samples == 0) analysis.WarningList.Add(etw
                ? "no kernel CPU samples for the benchmark process (profile without the Profile kernel keyword): CPU and tag columns are empty"
                : NoEventPipeSamplesWarning);
        }

        /// <summary>Hot methods for --top, per serializer, operation and N, once the runs have their final names.</summary>
        private void CollectHotMethods()
        {
            if (!options.CollectHotMethods || _cpu is null) return;
            // The runs the tables average and the call trees and speedscope files show (not the warm-ups, not a harness's
            // outliers), so a method's share is of the time the CPU column shows.
            foreach (var (key, methods) in _cpu.HotMethods(analysis.Runs.Where(r => r.IsMeasured))) analysis.HotMethodTable[key] = methods;
            // A trace without runs: one table over every thread, from the same weights as the threads' CPU.
            if (analysis.Runs.Count == 0) analysis.Process = analysis.Process with { HotMethods = _cpu.WholeTraceHotMethods() ?? [] };
        }
    }
}
