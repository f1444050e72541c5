using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// Second stage of an analysis whose trace folder holds a Linux kernel session: after the EventPipe pass has found
/// the runs, GC pauses and suspensions, the perf data supplies on-CPU time, tags on merged stacks, hot methods,
/// code tiers, off-CPU reasons and the marker's windows from context switches. Anything wrong with the kernel data
/// is a warning; the EventPipe figures stay.
/// </summary>
internal static class KernelSessionAnalysis
{
    /// <summary>The recorder's default period; used only when the manifest does not say.</summary>
    private static readonly double FallbackPeriodMs = PerfRecording.DefaultPeriodMs;

    public static void Apply(TraceInput input, TraceAnalysis analysis, PassTimeline timeline, StackTagMatcher? matcher, AnalyzerOptions options, IProgress<string>? progress)
    {
        if (input.KernelScriptPath is not { } script || !options.UseKernelSession || input.Format != TraceFormat.NetTrace) return;
        if (!timeline.Clock.Known) { analysis.Warnings.Add("kernel session present but the EventPipe trace has no events to align it with: not used"); return; }
        var period = PeriodFromManifest(input.ManifestPath, out var periodKnown);
        progress?.Report($"reading the kernel session ({new FileInfo(script).Length / 1048576.0:F1} MB)...");
        KernelTrace kernel;
        int badLines;
        try { kernel = PerfScriptReader.Read(script, period, out badLines); }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            analysis.Warnings.Add($"{script}: kernel session unreadable ({ex.Message}); CPU columns are EventPipe's");
            return;
        }
        if (kernel.Samples.Count == 0 && kernel.SwitchOuts.Count == 0)
        {
            analysis.Warnings.Add($"{script}: the kernel session holds no samples or context switches; CPU columns are EventPipe's");
            return;
        }
        var code = ManagedCodeMap.FromNetTrace(input.TracePath);
        var namer = new KernelFrameNamer(kernel, code);
        var summary = new KernelSessionSummary
        {
            File = Path.GetFileName(script),
            SamplePeriodMs = period,
            Samples = kernel.Samples.Count,
            ContextSwitches = kernel.SwitchOuts.Count,
            Wakings = kernel.Wakings.Count,
            LostEvents = kernel.LostEvents,
            UnreadableLines = badLines,
            ManagedMethodsMapped = code.Count,
        };
        if (kernel.Samples.Count > 0)
        {
            var charger = new KernelCpuCharger(analysis, kernel, namer, matcher, timeline, options);
            charger.Charge();
            analysis.KernelSamples = charger;
            charger.ChargeThreads(analysis.Threads, kernel.ThreadNames);
            if (kernel.HasSwitchIns)
            {
                var precise = new SwitchCpuTime(kernel, timeline.Clock);
                precise.Apply(analysis.Runs);
                var sampled = kernel.Samples.GroupBy(x => x.ThreadId).ToDictionary(g => g.Key,
                    g => (timeline.Clock.ToRelativeMs(g.First().TimeNs), timeline.Clock.ToRelativeMs(g.Last().TimeNs)));
                precise.Apply(analysis.Threads, sampled, period);
            }
            summary.ProcessSamples = charger.ProcessSamples;
            summary.UnnamedLeafShare = charger.ProcessSamples == 0 ? 0 : (double)charger.UnnamedLeafSamples / charger.ProcessSamples;
            analysis.Trace.CpuSource = "kernel";
            analysis.Warnings.Remove(TraceAnalyzer.NoEventPipeSamplesWarning);
            analysis.Trace.SamplingSource = kernel.HasSwitchIns
                ? $"kernel session (perf): on-CPU time of the worker from its context switches, split by stack tags of CPU samples every {period:F3} ms (managed, native and kernel frames)"
                : $"kernel session (perf cpu-clock): on-CPU time of the worker from CPU samples every {period:F3} ms (managed, native and kernel frames)";
            analysis.Trace.ObservedSampleIntervalMs = period;
            analysis.Trace.UnresolvedSampleShare = 0; // EventPipe's leaves no longer carry the columns
        }
        OffCpuClassifier.Classify(analysis.Runs, kernel, timeline);
        KernelMarkerWindows.Apply(analysis, kernel, timeline, summary);
        analysis.Trace.Kernel = summary;
        if (!periodKnown) analysis.Warnings.Add($"the manifest does not give the kernel session's sample period: {FallbackPeriodMs} ms assumed");
        if (kernel.LostEvents > 0) analysis.Warnings.Add($"the kernel session lost {kernel.LostEvents:N0} records (perf buffer full): CPU figures may be low");
        if (badLines > 0) analysis.Warnings.Add($"{badLines:N0} lines of {Path.GetFileName(script)} were not readable (cut short?): figures cover the readable part");
        if (code.Count == 0) analysis.Warnings.Add("no method load or rundown events in the EventPipe trace: managed frames in kernel samples are unnamed");
    }

    private static double PeriodFromManifest(string? manifest, out bool known)
    {
        var ns = TraceManifest.TryLoad(manifest)?.Kernel?.CpuSamplePeriodNs;
        known = ns > 0;
        return known ? ns!.Value / 1e6 : FallbackPeriodMs;
    }
}
