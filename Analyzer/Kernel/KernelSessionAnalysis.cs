using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Symbols;
using EtwSerializerProfiler.Analyzer.Timeline;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// A trace folder's Linux kernel session, read: the perf records, and once the EventPipe pass has mapped the managed
/// code (<see cref="Named"/>), the namer of their frames.
/// </summary>
internal sealed record KernelSession
{
    public required string File { get; init; }
    public required KernelTrace Trace { get; init; }
    /// <summary>Where managed code lives, from the EventPipe pass; empty until <see cref="Named"/>.</summary>
    public ManagedCodeMap Code { get; private init; } = ManagedCodeMap.Empty;
    public KernelFrameNamer Namer { get; private init; } = null!;
    public required double PeriodMs { get; init; }
    public bool PeriodKnown { get; init; }
    public int BadLines { get; init; }
    /// <summary>The --symbols debug files the frames were named with; null when the stored perf text was read.</summary>
    public NativeSymbols? Symbols { get; init; }
    public bool HasSamples => Trace.Samples.Count > 0;

    /// <summary>The session with its managed frames named from the pass's code map.</summary>
    public KernelSession Named(ManagedCodeMap code) => this with { Code = code, Namer = new KernelFrameNamer(Trace, code) };
}

/// <summary>
/// The kernel session's two stages around the EventPipe pass. <see cref="Load"/> reads the perf text, and needs
/// nothing from the pass, so it runs beside it; the pass maps the managed code that names its frames. After the pass has found the runs, GC pauses
/// and suspensions (and the samples were charged, the kernel's if it has any), <see cref="Apply"/> adds what only
/// the kernel sees: the marker's windows from context switches and the session's summary (the off-CPU reasons,
/// <see cref="ClassifyOffCpu"/>, are found beside the charge). Anything
/// wrong with the kernel data is a warning; the EventPipe figures stay.
/// </summary>
internal static class KernelSessionAnalysis
{
    /// <summary>The recorder's default period; used only when the manifest does not say.</summary>
    private static readonly double FallbackPeriodMs = PerfRecording.DefaultPeriodMs;

    /// <returns>The session, or null with the reason in <paramref name="warnings"/> (nothing when there is none to read).</returns>
    public static KernelSession? Load(TraceInput input, AnalyzerOptions options, List<string> warnings, IProgress<string>? progress, NativeSymbols? symbols = null)
    {
        if (!options.UseKernelSession || input.Format != TraceFormat.NetTrace) return null;
        if (symbols is { Useless: null }) return Load(input, warnings, progress, symbols);
        if (input.KernelScriptPath is not { } script) return null;
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
        return Session(warnings, script, kernel, period, periodKnown, badLines, symbols: null);
    }

    /// <summary>The kernel session named again by perf with the --symbols debug files; the stored text if perf fails.</summary>
    private static KernelSession? Load(TraceInput input, List<string> warnings, IProgress<string>? progress, NativeSymbols symbols)
    {
        var period = PeriodFromManifest(input.ManifestPath, out var periodKnown);
        progress?.Report($"naming native frames again: perf script on {TraceFolderLayout.KernelData} with {symbols.Describe()}...");
        KernelTrace kernel;
        int badLines;
        try { (kernel, badLines) = symbols.Read(utf8 => (PerfScriptReader.Read(utf8, period, out var bad), bad)); }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or System.ComponentModel.Win32Exception)
        {
            if (input.KernelScriptPath is null)
            {
                warnings.Add($"{symbols.DataPath}: perf script with --symbols failed ({ex.Message}) and there is no {TraceFolderLayout.KernelScript}; CPU columns are EventPipe's");
                return null;
            }
            warnings.Add($"perf script with --symbols failed ({ex.Message}): native frames keep the names perf gave at recording time");
            return Load(input, new AnalyzerOptions(), warnings, progress);
        }
        return Session(warnings, symbols.DataPath, kernel, period, periodKnown, badLines, symbols);
    }

    private static KernelSession? Session(List<string> warnings, string file, KernelTrace kernel, double period, bool periodKnown, int badLines, NativeSymbols? symbols)
    {
        if (kernel.Samples.Count == 0 && kernel.SwitchOuts.Count == 0)
        {
            warnings.Add($"{file}: the kernel session holds no samples or context switches; CPU columns are EventPipe's");
            return null;
        }
        return new KernelSession
        {
            File = file, Trace = kernel,
            PeriodMs = period, PeriodKnown = periodKnown, BadLines = badLines, Symbols = symbols,
        };
    }

    public static void Apply(KernelSession session, AnalysisDraft analysis, PassTimeline timeline)
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
            var unnamed = kernel.Samples.Where(s => s.StackId >= 0 && LeafUnnamed(session, s.StackId)).Select(s => session.Namer.Name(kernel.Stacks.Leaf(s.StackId)).Frame.Module).ToList();
            summary = summary with
            {
                ProcessSamples = kernel.Samples.Count,
                UnnamedLeafShare = (double)unnamed.Count / kernel.Samples.Count,
                UnnamedLeafShareByModule = unnamed.GroupBy(m => m, StringComparer.Ordinal).OrderByDescending(g => g.Count()).ThenBy(g => g.Key, StringComparer.Ordinal)
                    .ToDictionary(g => g.Key, g => (double)g.Count() / kernel.Samples.Count, StringComparer.Ordinal),
            };
        }
        summary = summary with { SymbolsFrom = session.Symbols is { } symbols ? $"{symbols.Describe()} from --symbols {symbols.Contents.FolderNames}" : null };
        summary = KernelMarkerWindows.Apply(analysis, kernel, timeline, summary);
        analysis.Trace = analysis.Trace with { Kernel = summary };
        if (!session.PeriodKnown) analysis.WarningList.Add($"the manifest does not give the kernel session's sample period: {FallbackPeriodMs} ms assumed");
        if (kernel.LostEvents > 0) analysis.WarningList.Add($"the kernel session lost {kernel.LostEvents:N0} records (perf buffer full): CPU figures may be low");
        if (session.BadLines > 0) analysis.WarningList.Add($"{session.BadLines:N0} lines of {Path.GetFileName(session.File)} were not readable (cut short?): figures cover the readable part");
        if (session.Code.Count == 0) analysis.WarningList.Add("no method load or rundown events in the EventPipe trace: managed frames in kernel samples are unnamed");
    }

    /// <summary>
    /// Why each run's worker was off the CPU (<see cref="OffCpuClassifier"/>). It needs the runs' windows and the pass's
    /// time line only, so the pass runs it beside the CPU charge; it writes nothing but the runs' off-CPU tables.
    /// </summary>
    public static void ClassifyOffCpu(KernelSession session, IReadOnlyList<RunDraft> runs, PassTimeline timeline) =>
        OffCpuClassifier.Classify(runs, session.Trace, timeline);

    /// <summary>What the trace says its CPU figures are, when the kernel session supplied them.</summary>
    public static string SamplingSource(KernelSession session) => session.Trace.HasSwitchIns
        ? $"kernel session (perf): on-CPU time of the worker from its context switches, split by stack tags of CPU samples every {session.PeriodMs:F3} ms (managed, native and kernel frames)"
        : $"kernel session (perf cpu-clock): on-CPU time of the worker from CPU samples every {session.PeriodMs:F3} ms (managed, native and kernel frames)";

    private static bool LeafUnnamed(KernelSession session, int stack) =>
        stack >= 0 && session.Namer.Name(session.Trace.Stacks.Leaf(stack)).Frame.Method == StackFrame.Unresolved;

    /// <summary>The manifest's one field the analysis needs, without the serializer's set-up (ManifestKernelPeriod says why).</summary>
    private static double PeriodFromManifest(string? manifest, out bool known)
    {
        var ns = ManifestKernelPeriod.TryRead(manifest);
        known = ns is not null;
        return known ? ns!.Value / 1e6 : FallbackPeriodMs;
    }
}
