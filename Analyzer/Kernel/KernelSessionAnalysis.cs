using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Timeline;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>A trace folder's Linux kernel session, read: the perf records, the managed code map that names their frames.</summary>
internal sealed class KernelSession
{
    public required string File { get; init; }
    public required KernelTrace Trace { get; init; }
    public required KernelFrameNamer Namer { get; init; }
    public required ManagedCodeMap Code { get; init; }
    public required double PeriodMs { get; init; }
    public bool PeriodKnown { get; init; }
    public int BadLines { get; init; }
    public bool HasSamples => Trace.Samples.Count > 0;
}

/// <summary>
/// The kernel session's two stages around the EventPipe pass. <see cref="Load"/> reads the perf text and maps the
/// managed code, and needs nothing from the pass, so it runs beside it. After the pass has found the runs, GC pauses
/// and suspensions (and the samples were charged, the kernel's if it has any), <see cref="Apply"/> adds what only
/// the kernel sees: off-CPU reasons, the marker's windows from context switches, and the session's summary. Anything
/// wrong with the kernel data is a warning; the EventPipe figures stay.
/// </summary>
internal static class KernelSessionAnalysis
{
    /// <summary>The recorder's default period; used only when the manifest does not say.</summary>
    private static readonly double FallbackPeriodMs = PerfRecording.DefaultPeriodMs;

    /// <returns>The session, or null with the reason in <paramref name="warnings"/> (nothing when there is none to read).</returns>
    public static KernelSession? Load(TraceInput input, AnalyzerOptions options, List<string> warnings, IProgress<string>? progress)
    {
        if (input.KernelScriptPath is not { } script || !options.UseKernelSession || input.Format != TraceFormat.NetTrace) return null;
        var period = PeriodFromManifest(input.ManifestPath, out var periodKnown);
        progress?.Report($"reading the kernel session ({new FileInfo(script).Length / 1048576.0:F1} MB)...");
        KernelTrace kernel;
        int badLines;
        try { kernel = PerfScriptReader.Read(script, period, out badLines); }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            warnings.Add($"{script}: kernel session unreadable ({ex.Message}); CPU columns are EventPipe's");
            return null;
        }
        if (kernel.Samples.Count == 0 && kernel.SwitchOuts.Count == 0)
        {
            warnings.Add($"{script}: the kernel session holds no samples or context switches; CPU columns are EventPipe's");
            return null;
        }
        var code = ManagedCodeMap.FromNetTrace(input.TracePath);
        return new KernelSession
        {
            File = script, Trace = kernel, Namer = new KernelFrameNamer(kernel, code), Code = code,
            PeriodMs = period, PeriodKnown = periodKnown, BadLines = badLines,
        };
    }

    public static void Apply(KernelSession session, TraceAnalysis analysis, PassTimeline timeline)
    {
        var kernel = session.Trace;
        var summary = new KernelSessionSummary
        {
            File = Path.GetFileName(session.File),
            SamplePeriodMs = session.PeriodMs,
            Samples = kernel.Samples.Count,
            ContextSwitches = kernel.SwitchOuts.Count,
            Wakings = kernel.Wakings.Count,
            LostEvents = kernel.LostEvents,
            UnreadableLines = session.BadLines,
            ManagedMethodsMapped = session.Code.Count,
        };
        if (session.HasSamples)
        {
            summary.ProcessSamples = kernel.Samples.Count;
            summary.UnnamedLeafShare = (double)kernel.Samples.Count(s => s.StackId >= 0 && LeafUnnamed(session, s.StackId)) / kernel.Samples.Count;
        }
        OffCpuClassifier.Classify(analysis.Runs, kernel, timeline);
        KernelMarkerWindows.Apply(analysis, kernel, timeline, summary);
        analysis.Trace.Kernel = summary;
        if (!session.PeriodKnown) analysis.Warnings.Add($"the manifest does not give the kernel session's sample period: {FallbackPeriodMs} ms assumed");
        if (kernel.LostEvents > 0) analysis.Warnings.Add($"the kernel session lost {kernel.LostEvents:N0} records (perf buffer full): CPU figures may be low");
        if (session.BadLines > 0) analysis.Warnings.Add($"{session.BadLines:N0} lines of {Path.GetFileName(session.File)} were not readable (cut short?): figures cover the readable part");
        if (session.Code.Count == 0) analysis.Warnings.Add("no method load or rundown events in the EventPipe trace: managed frames in kernel samples are unnamed");
    }

    /// <summary>What the trace says its CPU figures are, when the kernel session supplied them.</summary>
    public static string SamplingSource(KernelSession session) => session.Trace.HasSwitchIns
        ? $"kernel session (perf): on-CPU time of the worker from its context switches, split by stack tags of CPU samples every {session.PeriodMs:F3} ms (managed, native and kernel frames)"
        : $"kernel session (perf cpu-clock): on-CPU time of the worker from CPU samples every {session.PeriodMs:F3} ms (managed, native and kernel frames)";

    private static bool LeafUnnamed(KernelSession session, int stack) =>
        session.Trace.Stacks[stack] is { Length: > 0 } s && session.Namer.Name(s[0]).Frame.Method == StackFrame.Unresolved;

    private static double PeriodFromManifest(string? manifest, out bool known)
    {
        var ns = TraceManifest.TryLoad(manifest)?.Kernel?.CpuSamplePeriodNs;
        known = ns > 0;
        return known ? ns!.Value / 1e6 : FallbackPeriodMs;
    }
}
