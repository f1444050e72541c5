using EtwSerializerProfiler.Analyzer.Gc;
using EtwSerializerProfiler.Analyzer.Harness;
using EtwSerializerProfiler.Analyzer.Kernel;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing.Sources;
using EtwSerializerProfiler.Analyzer.Samples;
using EtwSerializerProfiler.Analyzer.Timeline;
using Microsoft.Diagnostics.Tracing;

namespace EtwSerializerProfiler.Analyzer.Processing;

/// <summary>
/// CPU: of the trace's sources (<see cref="ICpuSource"/>, opened with the trace), the first that supplies it is
/// charged by <see cref="SampleCharger"/>; a source that shows bias (EventPipe's, under the kernel session) is
/// charged the same way beside it, into <see cref="RunDraft.EventPipeCpu"/>. The runs found without names are named
/// by the samples charged to them.
/// </summary>
internal sealed class CpuStage(IReadOnlyList<ICpuSource> sources, IProgress<string>? progress) : IPassStage
{
    private IPass? _pass;

    private IPass Pass => _pass ?? throw new InvalidOperationException("the CPU is charged before the pass");

    /// <summary>The charge, once made (null before, or when the pass ended before it).</summary>
    public SampleCharges? Charges { get; private set; }

    /// <summary>In the pass, each source keeps the samples its events carry.</summary>
    public void Subscribe(TraceEventDispatcher source, IPass pass)
    {
        _pass = pass;
        foreach (var cpu in sources) cpu.Subscribe(source, new PassSamples(pass.Stacks, pass.Scope));
    }

    /// <remarks>
    /// The kernel session's records are taken chunk by chunk here (<see cref="KernelChunkPass"/>): its samples
    /// charged when it is the source, its switches walked for the precise on-CPU time and the off-CPU reasons, the
    /// marker's windows found, each chunk dropped once every stage has read it. The runs' windows and the time line are final here.
    /// </remarks>
    public void Charge(KernelSession? session)
    {
        var pauses = new GcPauses(Pass.Stage<RuntimeStage>().GcPauses);
        var cpu = new CpuCharge(Pass.Analysis, Pass.Timeline, pauses, session);
        var primary = sources.First(s => s.Supplies(cpu));
        var plan = primary.Plan(cpu);
        var clockKnown = Pass.Timeline.Clock.Known;
        List<RunDraft> runs = [.. Pass.Analysis.Runs];
        // Kept beside the columns: what another sampler (EventPipe's, at safe points) said of the same runs. Charged on the
        // other core while the source is: the two share only the stack tag matcher, which is thread-safe.
        var beside = sources.FirstOrDefault(s => s != primary && s.ShowsBias);
        var besideStream = beside?.Plan(cpu).Stream;
        var bias = besideStream is null ? null : Task.Run(() => new SampleCharger(besideStream, Pass.Stacks.Matcher, pauses) { KeepLedger = false }.Charge(Pass.Analysis.Runs));
        var charger = new SampleCharger(plan.Stream, Pass.Stacks.Matcher, pauses)
        {
            Work = Pass.Stage<RuntimeWorkStage>().Work.Build(),
            ThrowSites = ThrowCallSites.From(Pass.Stage<SideFilesStage>().Stackless?.SampledStacks, Pass.Stage<ManagedCodeStage>().Code),
            KeepLedger = Pass.Options.KeepChargedSamples,
            KeepThreadLedger = Pass.Options.KeepMarks,
            WholeTraceHotMethods = Pass.Options.CollectHotMethods,
            PreciseRunMs = plan.PreciseRunMs,
            PreciseThreadsMs = plan.PreciseThreadsMs,
        };
        Charges = Common.Beside.Join(bias, () =>
        {
            var charging = charger.Begin(Pass.Analysis.Runs);
            if (!plan.ChargedByChunks) charging.Add(plan.Stream);
            if (session is not null)
            {
                progress?.Report($"charging the kernel session ({Path.GetFileName(session.File)}) as it is read, {Pass.Options.KernelRecordsPerChunk:N0} records at a time...");
                session.Read = KernelChunkPass.Read(session, Pass.Timeline, pauses, Pass.Stacks.Matcher?.File, plan.ChargedByChunks ? charging : null, plan.Switches,
                    clockKnown ? new OffCpuClassifier(runs, Pass.Timeline, pauses) { Marks = Pass.Marks } : null, clockKnown ? new KernelMarkerWindows(Pass.Timeline) : null,
                    // Beside the workers' CPU only when the kernel session is the CPU: the process total adds up.
                    plan.Switches is not null ? new OtherThreadsCpu(runs, Pass.Timeline.Clock, plan.Switches) : null);
            }
            return charging.Finish();
        });
        if (bias is not null) beside!.WriteBias(bias.Result, Pass.Analysis.Runs);
        WriteRuns(Charges, primary);
        primary.Finish(cpu);
        WriteThreads(Charges);
        _threadName = id => primary.ThreadName(id, cpu);
        if (Pass.Options.KeepChargedSamples) Pass.Analysis.Samples = new SampleLedger<RunDraft>(primary.Kind, Charges.Ledger, Pass.Analysis.Runs.Count == 0 || Pass.Options.KeepMarks ? Charges.ThreadLedger : [],
            [.. pauses.All], plan.Stream.PeriodMs);
        Pass.Analysis.Trace = Pass.Analysis.Trace with { CpuSource = primary.Kind, CpuBiasReason = primary.BiasReason, TypeLoadEvents = Pass.Stage<RuntimeWorkStage>().SawTypeLoads };
        primary.Describe(cpu, Charges);
    }

    private void WriteRuns(SampleCharges cpu, ICpuSource source)
    {
        foreach (var run in Pass.Analysis.Runs)
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

    private Func<int, string?>? _threadName;

    /// <summary>A thread's name as the CPU source saw it (the kernel session's, for every thread it switched, sampled or not); null before the charge.</summary>
    public string? ThreadName(int threadId) => _threadName?.Invoke(threadId);

    /// <summary>Each thread's whole-trace CPU; threads only the source saw (native ones, in the kernel session) appear.</summary>
    private void WriteThreads(SampleCharges cpu)
    {
        foreach (var (id, a) in cpu.Threads)
        {
            var t = Pass.ThreadOf(id);
            t.CpuMs = a.CpuMs;
            t.Samples = a.Samples;
            t.TagTable.Clear();
            foreach (var (tag, ms) in a.Tags) t.TagTable[tag] = ms;
        }
    }

    /// <summary>The verdicts' sites, and hot methods for --top, per serializer, operation and N, once the runs have their final names.</summary>
    public void CollectHotMethods()
    {
        if (Charges is null) return;
        foreach (var (key, sites) in Charges.TagSites(Pass.Analysis.Runs.Where(r => r.IsMeasured))) Pass.Analysis.TagSiteTable[key] = sites;
        if (!Pass.Options.CollectHotMethods) return;
        // The runs the tables average and the call trees and speedscope files show (not the warm-ups, not a harness's
        // outliers), so a method's share is of the time the CPU column shows.
        foreach (var (key, methods) in Charges.HotMethods(Pass.Analysis.Runs.Where(r => r.IsMeasured))) Pass.Analysis.HotMethodTable[key] = methods;
        // A trace without runs: one table over every thread, from the same weights as the threads' CPU.
        if (Pass.Analysis.Runs.Count == 0) Pass.Analysis.Process = Pass.Analysis.Process with { HotMethods = Charges.WholeTraceHotMethods() ?? [] };
    }

    /// <summary>Names the unnamed runs and marks their warm-ups, before MarkWarmups groups them.</summary>
    public void NameUnnamedRuns()
    {
        var unnamed = Pass.Analysis.Runs.Where(r => r.Key.Serializer == StackTagRunNames.Unnamed).OrderBy(r => r.StartMs).ToList();
        if (unnamed.Count == 0) return;
        var names = StackTagRunNames.Apply(unnamed, Charges?.NameVotes ?? new Dictionary<RunDraft, Dictionary<string, double>>());
        Pass.Analysis.Trace = Pass.Analysis.Trace with { InferredNames = names };
        if (!Pass.Named) Pass.Analysis.WarningList.Add("runs found from the marker's waits cannot be named: no stack tags");
        else if (names.Unnamed > 0) Pass.Analysis.WarningList.Add($"{names.Unnamed} run(s) found from the marker's waits had no samples in serializer code to name them, nor a named run of their operation: left as {StackTagRunNames.Unnamed}");
        // --serializers applies to the inferred names too.
        Pass.Analysis.RunList.RemoveAll(r => !Pass.Options.Includes(r.Key.Serializer));
    }
}
