using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing.Sources;
using EtwSerializerProfiler.Analyzer.Samples;
using EtwSerializerProfiler.Analyzer.Timeline;

namespace EtwSerializerProfiler.Analyzer.Processing;

public sealed partial class TraceAnalyzer
{
    /// <summary>
    /// CPU: of the trace's sources (<see cref="ICpuSource"/>, opened with the trace), the first that supplies it is
    /// charged by <see cref="SampleCharger"/>; a source that shows bias (EventPipe's, under the kernel session) is
    /// charged the same way beside it, into <see cref="RunDraft.EventPipeCpu"/>.
    /// </summary>
    private sealed partial class PassState
    {
        private SampleCharges? _cpu;

        /// <remarks>
        /// The kernel session's records are taken chunk by chunk here (<see cref="KernelChunkPass"/>): its samples
        /// charged when it is the source, its switches walked for the precise on-CPU time and the off-CPU reasons, the
        /// marker's windows found, each chunk dropped once every stage has read it. The runs' windows and the time line are final here.
        /// </remarks>
        private void ChargeCpu(KernelSession? session)
        {
            var pauses = new GcPauses(Stage<RuntimeStage>().GcPauses);
            var cpu = new CpuCharge(analysis, Timeline, pauses, session);
            var primary = _cpuSources.First(s => s.Supplies(cpu));
            var plan = primary.Plan(cpu);
            var clockKnown = Timeline.Clock.Known;
            List<RunDraft> runs = [.. analysis.Runs];
            // Kept beside the columns: what another sampler (EventPipe's, at safe points) said of the same runs. Charged on the
            // other core while the source is: the two share only the stack tag matcher, which is thread-safe.
            var beside = _cpuSources.FirstOrDefault(s => s != primary && s.ShowsBias);
            var besideStream = beside?.Plan(cpu).Stream;
            var bias = besideStream is null ? null : Task.Run(() => new SampleCharger(besideStream, Matcher, pauses) { KeepLedger = false }.Charge(analysis.Runs));
            var charger = new SampleCharger(plan.Stream, Matcher, pauses)
            {
                Work = Stage<RuntimeWorkStage>().Work.Build(),
                ThrowSites = ThrowCallSites.From(_stackless?.SampledStacks, Code),
                KeepLedger = options.KeepChargedSamples,
                KeepThreadLedger = options.KeepMarks,
                WholeTraceHotMethods = options.CollectHotMethods,
                PreciseRunMs = plan.PreciseRunMs,
                PreciseThreadsMs = plan.PreciseThreadsMs,
            };
            _cpu = Common.Beside.Join(bias, () =>
            {
                var charging = charger.Begin(analysis.Runs);
                if (!plan.ChargedByChunks) charging.Add(plan.Stream);
                if (session is not null)
                {
                    progress?.Report($"charging the kernel session ({Path.GetFileName(session.File)}) as it is read, {options.KernelRecordsPerChunk:N0} records at a time...");
                    session.Read = KernelChunkPass.Read(session, Timeline, pauses, Matcher?.File, plan.ChargedByChunks ? charging : null, plan.Switches,
                        clockKnown ? new OffCpuClassifier(runs, Timeline, pauses) { Marks = Marks } : null, clockKnown ? new KernelMarkerWindows(Timeline) : null,
                        // Beside the workers' CPU only when the kernel session is the CPU: the process total adds up.
                        plan.Switches is not null ? new OtherThreadsCpu(runs, Timeline.Clock) : null);
                }
                return charging.Finish();
            });
            if (bias is not null) beside!.WriteBias(bias.Result, analysis.Runs);
            WriteRuns(_cpu, primary);
            primary.Finish(cpu);
            WriteThreads(_cpu, primary, cpu);
            if (options.KeepChargedSamples) analysis.Samples = new SampleLedger<RunDraft>(primary.Kind, _cpu.Ledger, analysis.Runs.Count == 0 || options.KeepMarks ? _cpu.ThreadLedger : [],
                [.. pauses.All], plan.Stream.PeriodMs);
            analysis.Trace = analysis.Trace with { CpuSource = primary.Kind, CpuBiasReason = primary.BiasReason, TypeLoadEvents = Stage<RuntimeWorkStage>().SawTypeLoads };
            primary.Describe(cpu, _cpu);
        }

        private void WriteRuns(SampleCharges cpu, ICpuSource source)
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
                source.Charged(run, a);
            }
        }

        /// <summary>Each thread's whole-trace CPU; threads only the source saw (native ones, in the kernel session) appear, named as it saw them.</summary>
        private void WriteThreads(SampleCharges cpu, ICpuSource source, CpuCharge charge)
        {
            foreach (var (id, a) in cpu.Threads)
            {
                if (!_threads.TryGetValue(id, out var t)) _threads[id] = t = new ThreadDraft { ThreadId = id };
                t.CpuMs = a.CpuMs;
                t.Samples = a.Samples;
                t.TagTable.Clear();
                foreach (var (tag, ms) in a.Tags) t.TagTable[tag] = ms;
                t.Name ??= source.ThreadName(id, charge);
            }
        }

        /// <summary>The verdicts' sites, and hot methods for --top, per serializer, operation and N, once the runs have their final names.</summary>
        private void CollectHotMethods()
        {
            if (_cpu is null) return;
            foreach (var (key, sites) in _cpu.TagSites(analysis.Runs.Where(r => r.IsMeasured))) analysis.TagSiteTable[key] = sites;
            if (!options.CollectHotMethods) return;
            // The runs the tables average and the call trees and speedscope files show (not the warm-ups, not a harness's
            // outliers), so a method's share is of the time the CPU column shows.
            foreach (var (key, methods) in _cpu.HotMethods(analysis.Runs.Where(r => r.IsMeasured))) analysis.HotMethodTable[key] = methods;
            // A trace without runs: one table over every thread, from the same weights as the threads' CPU.
            if (analysis.Runs.Count == 0) analysis.Process = analysis.Process with { HotMethods = _cpu.WholeTraceHotMethods() ?? [] };
        }
    }
}
