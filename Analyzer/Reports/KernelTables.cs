using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Reports;

/// <summary>
/// What a kernel session adds to the analysis output beside the tag groups (Report/StackTagGroups.cs, which show
/// on-CPU time by group and off-CPU time by reason): the CPU sources side by side with the thread CPU clock, and
/// what EventPipe-only figures can and cannot be trusted for.
/// </summary>
internal static class KernelTables
{
    /// <summary>
    /// The same runs through both sampling sources, against the benchmark's thread CPU clock: how far EventPipe's
    /// safe-point sampling is from on-CPU truth, for this trace. Shown when the recording kept both samplers.
    /// </summary>
    public static IEnumerable<TextTable> SourceTables(TraceAnalysis analysis)
    {
        var summaries = analysis.Cases.Where(s => s.EventPipeCpuMs is not null && s.Runs > 0).ToList();
        // Without EventPipe's sampler (the default beside a kernel session) every EventPipe figure is 0: nothing to compare.
        if (!analysis.Trace.OnCpu || summaries.All(s => s.EventPipeCpuMs is not > 0)) yield break;
        var table = new TextTable("CPU sources compared (mean per measured run): thread CPU clock = the benchmark's own, in-process",
            ["Serializer", "Operation", "N", "Thread CPU ms", "Kernel CPU ms", "EventPipe ms", "Reflection (kernel)", "Reflection (EventPipe)", "GC-poll leaves (EventPipe)"]);
        foreach (var s in summaries)
            table.AddRow(s.Serializer, s.Operation, Fmt.Objects(s.Objects), s.InProcessCpuMs is { } cpu ? Fmt.Ms(cpu) : "-", Fmt.Ms(s.CpuMs),
                Fmt.Ms(s.EventPipeCpuMs!.Value), Fmt.Pct(s.ReflectionShare), s.EventPipeReflectionShare is { } r ? Fmt.Pct(r) : "-",
                s.GcPollLeafShare is { } p ? Fmt.Pct(p) : "-");
        yield return table;
    }

    /// <summary>The kernel session's line, and the bias warning an EventPipe-only trace deserves.</summary>
    public static IEnumerable<string> Notes(TraceAnalysis analysis)
    {
        if (analysis.Trace.Kernel is { } k)
        {
            var windows = k.RunsWithSwitchWindow > 0
                ? $"; marker waits in context switches for {k.RunsWithSwitchWindow} runs, within {Fmt.Ms(k.MedianSwitchWindowDisagreementMs ?? 0)} ms (median, max {Fmt.Ms(k.MaxSwitchWindowDisagreementMs ?? 0)}) of RunBegin/RunEnd"
                : "";
            yield return $"Kernel session: {k.File}, {k.ProcessSamples:N0} CPU samples every {k.SamplePeriodMs:F3} ms, {k.ContextSwitches:N0} context switches, {k.Wakings:N0} wake-ups{(k.LostEvents > 0 ? $", {k.LostEvents:N0} lost" : "")}; {Fmt.Pct(k.UnnamedLeafShare)} of samples end in unnamed native code{UnnamedModules(k)}{windows}";
            if (k.SymbolsFrom is { } symbols) yield return $"Native symbols: frames named again by perf script with debug files for {symbols}";
        }
        if (analysis.Trace.OnCpu) yield break;
        var polls = analysis.Cases.Where(s => s.GcPollLeafShare is > BiasedShare).ToList();
        if (polls.Count == 0) yield break;
        yield return $"safe-point bias: in {polls.Count} row(s) {Fmt.Pct(polls.Min(p => p.GcPollLeafShare!.Value))}-{Fmt.Pct(polls.Max(p => p.GcPollLeafShare!.Value))} of EventPipe's samples stop at a GC-poll helper: "
            + "EventPipe samples threads only at safe points, so those samples name where a thread was stopped, not where it spent its time, and tag shares favour code with polls "
            + "(measured here: Reflection serializer 86-91% reflection on EventPipe vs 7-10% on-CPU; docs/analyzer.md#accuracy). Record with the kernel session for on-CPU attribution (Linux: esp record --kernel perf).";
    }

    /// <summary>" (libcoreclr.so 11.9%, ? 0.4%)": the modules whose debug files would name the most, at most four.</summary>
    private static string UnnamedModules(KernelSessionSummary k) =>
        k.UnnamedLeafShareByModule.Count == 0 ? "" : $" ({string.Join(", ", k.UnnamedLeafShareByModule.Take(4).Select(m => $"{m.Key} {Fmt.Pct(m.Value)}"))})";

    /// <summary>Above this share of GC-poll leaves the EventPipe tag shares are called biased (docs/analyzer.md#accuracy).</summary>
    public const double BiasedShare = 0.2;
}
