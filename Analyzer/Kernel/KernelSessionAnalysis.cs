using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.StackTags;
using EtwSerializerProfiler.Analyzer.Symbols;
using EtwSerializerProfiler.Analyzer.Timeline;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// A trace folder's Linux kernel session, being read: its perf records come in chunks (<see cref="KernelChunks"/>),
/// read ahead beside the EventPipe pass and charged after it; once the pass has mapped the managed code
/// (<see cref="Named"/>), the namer of their frames (<see cref="NamerOf"/>). Disposing it stops the reader.
/// </summary>
internal sealed record KernelSession : IDisposable
{
    public required string File { get; init; }
    public required KernelChunks Chunks { get; init; }
    /// <summary>Whether the session holds CPU samples (the chunks up to the first one were read to know).</summary>
    public required bool HasSamples { get; init; }
    /// <summary>Where managed code lives, from the EventPipe pass; empty until <see cref="Named"/>.</summary>
    public ManagedCodeMap Code { get; private init; } = ManagedCodeMap.Empty;
    public required double PeriodMs { get; init; }
    public bool PeriodKnown { get; init; }
    /// <summary>The --symbols debug files the frames were named with; null when the stored perf text was read.</summary>
    public NativeSymbols? Symbols { get; init; }
    /// <summary>What reading every chunk found (<see cref="KernelRead"/>); null until the chunks have been taken.</summary>
    public KernelRead? Read { get; set; }
    /// <summary>perf died mid-recording (manifest kernel.died): when and how; null when it ran to the end.</summary>
    public Common.KernelSessionDeath? Died { get; init; }

    /// <summary>The session with the pass's code map, which names its managed frames.</summary>
    public KernelSession Named(ManagedCodeMap code) => this with { Code = code };

    /// <summary>Module names, one string each for every chunk's namer.</summary>
    private readonly Dictionary<string, string> _modules = new(StringComparer.Ordinal);

    /// <summary>The namer of one chunk's frames (read by the pass's code map).</summary>
    public KernelFrameNamer NamerOf(KernelTrace chunk) => new(chunk, Code, _modules);

    public void Dispose() => Chunks.Dispose();
}

/// <summary>What the kernel session's chunks came to, counted as they were taken (nothing per record is kept).</summary>
internal sealed record KernelRead
{
    public int Samples { get; init; }
    public int ContextSwitches { get; init; }
    public int Wakings { get; init; }
    public bool HasSwitchIns { get; init; }
    public long LostEvents { get; init; }
    public int BadLines { get; init; }
    public string? Failure { get; init; }
    /// <summary>The time of the last record read (perf's clock, ns): the session says nothing of what came after it.</summary>
    public long? LastNs { get; init; }
    /// <summary>Samples whose leaf has no name, by the module perf gave.</summary>
    public required IReadOnlyDictionary<string, int> UnnamedLeavesByModule { get; init; }
    public required IReadOnlyDictionary<int, string> ThreadNames { get; init; }
    /// <summary>The marker's waits from context switches (<see cref="KernelMarkerWindows"/>), assigned to runs later.</summary>
    public required IReadOnlyList<MarkerWait> MarkerWaits { get; init; }
}

/// <summary>
/// The kernel session around the EventPipe pass. <see cref="Load"/> opens the perf text and starts reading it in
/// chunks, which needs nothing from the pass, so it runs beside it (a bounded read-ahead); the pass maps the managed
/// code that names its frames. After the pass the chunks are charged as they are read (Processing/KernelChunkPass:
/// the samples, the precise on-CPU time, the off-CPU reasons, the marker's waits), and <see cref="Apply"/> writes
/// what only the kernel sees: the marker's windows from context switches and the session's summary. Anything
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
        // A perf.data without its text (the recorder was killed before converting it): converted here, the recorder's way.
        if ((input.KernelScriptPath ?? LeftoverPerfData.Convert(input, warnings, progress)) is not { } script) return null;
        var period = PeriodFromManifest(input, out var periodKnown);
        // No manifest (a killed recorder): perf.data's own header gives the period the manifest would have.
        if (!periodKnown && input.ManifestPath is null && input.KernelDataPath is { } data && PerfDataPeriod.CpuClockNs(data) is { } ns)
            (period, periodKnown) = (ns / 1e6, true);
        progress?.Report($"reading the kernel session ({new FileInfo(script).Length / 1048576.0:F1} MB)...");
        Stream text;
        try { text = GzipFile.OpenText(script); } // a gzip cut short fails at its end: the reader counts it, the analysis says so
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            warnings.Add($"{script}: kernel session unreadable ({ex.Message}); CPU columns are EventPipe's");
            return null;
        }
        return Session(warnings, script, KernelChunks.Reading(text, period, options.KernelRecordsPerChunk), period, periodKnown, symbols: null);
    }

    /// <summary>The kernel session named again by perf with the --symbols debug files; the stored text if perf fails.</summary>
    private static KernelSession? Load(TraceInput input, List<string> warnings, IProgress<string>? progress, NativeSymbols symbols)
    {
        var period = PeriodFromManifest(input, out var periodKnown);
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
        return Session(warnings, symbols.DataPath, KernelChunks.Whole(kernel, badLines), period, periodKnown, symbols);
    }

    private static KernelSession? Session(List<string> warnings, string file, KernelChunks chunks, double period, bool periodKnown, NativeSymbols? symbols)
    {
        var (samples, anything) = chunks.Peek();
        if (!anything)
        {
            chunks.Dispose();
            warnings.Add($"{file}: the kernel session holds no samples or context switches; CPU columns are EventPipe's");
            return null;
        }
        return new KernelSession
        {
            File = file, Chunks = chunks, HasSamples = samples,
            PeriodMs = period, PeriodKnown = periodKnown, Symbols = symbols,
        };
    }

    /// <summary>
    /// What only the kernel sees, once its chunks have been read (<see cref="KernelSession.Read"/>): the marker's
    /// windows from context switches and the session's summary (the samples were charged, and the off-CPU reasons
    /// found, as each chunk was read).
    /// </summary>
    public static void Apply(KernelSession session, AnalysisDraft analysis)
    {
        var read = session.Read ?? throw new InvalidOperationException("the kernel session's chunks were not read");
        var summary = new KernelSessionSummary
        {
            File = Path.GetFileName(session.File),
            SamplePeriodMs = session.PeriodMs,
            Samples = read.Samples,
            ContextSwitches = read.ContextSwitches,
            Wakings = read.Wakings,
            LostEvents = read.LostEvents,
            UnreadableLines = read.BadLines,
            ManagedMethodsMapped = session.Code.Count,
        };
        if (read.Samples > 0)
        {
            // A sort of the module names, not LINQ over (name, count) pairs: that ran as tier-0 JIT code in the ReadyToRun build.
            var unnamed = 0;
            var modules = new List<string>(read.UnnamedLeavesByModule.Count);
            foreach (var (module, count) in read.UnnamedLeavesByModule)
            {
                unnamed += count;
                modules.Add(module);
            }
            modules.Sort((a, b) => read.UnnamedLeavesByModule[b].CompareTo(read.UnnamedLeavesByModule[a]) is var byCount and not 0 ? byCount : string.CompareOrdinal(a, b));
            var shares = new Dictionary<string, double>(modules.Count, StringComparer.Ordinal);
            foreach (var module in modules) shares[module] = (double)read.UnnamedLeavesByModule[module] / read.Samples;
            summary = summary with
            {
                ProcessSamples = read.Samples,
                UnnamedLeafShare = (double)unnamed / read.Samples,
                UnnamedLeafShareByModule = shares,
            };
        }
        summary = summary with { SymbolsFrom = session.Symbols is { } symbols ? $"{symbols.Describe()} from --symbols {symbols.Contents.FolderNames}" : null };
        summary = KernelMarkerWindows.Assign(analysis, read.MarkerWaits, summary);
        analysis.Trace = analysis.Trace with { Kernel = summary };
        if (!session.PeriodKnown) analysis.WarningList.Add($"the manifest does not give the kernel session's sample period: {FallbackPeriodMs} ms assumed");
        if (read.LostEvents > 0) analysis.WarningList.Add($"the kernel session lost {read.LostEvents:N0} records (perf buffer full): CPU figures may be low");
        if (read.BadLines > 0) analysis.WarningList.Add($"{read.BadLines:N0} lines of {Path.GetFileName(session.File)} were not readable (cut short?): figures cover the readable part");
        if (read.Failure is { } failure) analysis.WarningList.Add($"{Path.GetFileName(session.File)} could not be read to its end ({failure}): figures cover the part read");
        if (session.Code.Count == 0) analysis.WarningList.Add("no method load or rundown events in the EventPipe trace: managed frames in kernel samples are unnamed");
    }

    /// <summary>What the trace says its CPU figures are, when the kernel session supplied them.</summary>
    public static string SamplingSource(KernelSession session) => session.Read?.HasSwitchIns == true
        ? $"kernel session (perf): on-CPU time of the worker from its context switches, split by stack tags of CPU samples every {session.PeriodMs:F3} ms (managed, native and kernel frames)"
        : $"kernel session (perf cpu-clock): on-CPU time of the worker from CPU samples every {session.PeriodMs:F3} ms (managed, native and kernel frames)";

    /// <summary>The manifest's one field the analysis needs, without the serializer's set-up (ManifestKernelPeriod says why).</summary>
    private static double PeriodFromManifest(TraceInput input, out bool known)
    {
        var ns = input.ManifestBytes is { } manifest ? ManifestKernelPeriod.TryParse(manifest) : null;
        known = ns is not null;
        return known ? ns!.Value / 1e6 : FallbackPeriodMs;
    }
}
