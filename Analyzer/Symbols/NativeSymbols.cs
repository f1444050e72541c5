using System.Diagnostics;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Symbols;

/// <summary>
/// `esp analyze --symbols DIR`: the kernel session's frames named again by `perf script` on the folder's
/// kernel.perf.data, with the debug files found in DIR put where perf looks for them by build id
/// (<see cref="BuildIdCacheOverlay"/>). The stored `perf script` text holds the names perf could give at recording
/// time; perf.data holds addresses and build ids, so naming again with more debug files gives more names and moves
/// nothing else (times, stacks and records are the same). Not cached: perf script on a default-benchmark recording
/// takes seconds, read beside the EventPipe pass, and a cache would have to know the folder's contents to be correct.
/// </summary>
internal sealed class NativeSymbols
{
    public required string PerfPath { get; init; }
    public required string DataPath { get; init; }
    public required SymbolFolderContents Contents { get; init; }
    /// <summary>The trace's modules for which a --symbols folder has a debug file.</summary>
    public required IReadOnlyList<PerfModule> Matched { get; init; }
    /// <summary>Why --symbols names nothing new (no debug file at all, or none for a module of this trace); null when it does.</summary>
    public string? Useless { get; init; }

    /// <summary>
    /// Checks everything --symbols needs before the long analysis starts, so a mistake costs one line, not minutes:
    /// the folders (exit 2), the trace folder's perf.data (exit 3), perf itself (exit 2). Null without --symbols.
    /// </summary>
    public static NativeSymbols? Prepare(TraceInput input, AnalyzerOptions options)
    {
        if (options.SymbolFolders.Count == 0) return null;
        foreach (var folder in options.SymbolFolders) SymbolFolders.Validate(folder);
        if (!options.UseKernelSession) throw new UsageException("--symbols names the kernel session's native frames, which --no-kernel leaves out: use one or the other");
        if (input.KernelDataPath is not { } data)
            throw new BadInputException($"{input.DisplayName}: no {TraceFolderLayout.KernelData} beside the trace: --symbols names native frames by running perf script on the kernel session's perf data (esp record on Linux keeps it in the trace folder)");
        var perf = PerfTool.Locate() ?? throw new UsageException($"--symbols: {PerfTool.NotFoundReason()}; perf script names the native frames");
        var contents = SymbolFolders.Scan(options.SymbolFolders);
        var modules = PerfModules(perf, data);
        var matched = modules.Where(m => contents.ByBuildId.ContainsKey(m.BuildId)).ToList();
        return new NativeSymbols
        {
            PerfPath = perf, DataPath = data, Contents = contents, Matched = matched,
            Useless = contents.ByBuildId.Count == 0
                ? $"--symbols {contents.FolderNames}: no ELF file with a build id and a symbol table in {contents.FilesLooked:N0} files{(contents.WithoutSymbols > 0 ? $" ({contents.WithoutSymbols} stripped ones without symbols)" : "")}: native frames keep the names perf gave at recording time"
                : matched.Count == 0
                    ? $"--symbols {contents.FolderNames}: none of its {contents.ByBuildId.Count} debug files has the build id of a module in this trace ({string.Join(", ", modules.Where(m => !m.IsKernel).Take(6).Select(m => $"{m.Name} {m.BuildId}"))}): native frames keep the names perf gave at recording time"
                    : null,
        };
    }

    /// <summary>"libcoreclr.so (build id 7994...)" for each module named from a --symbols file.</summary>
    public string Describe() => string.Join(", ", Matched.Select(m => $"{m.Name} ({m.BuildId})"));

    /// <summary>perf script with the debug files, its UTF-8 text handed to <paramref name="read"/> as it runs (no text is stored).</summary>
    /// <exception cref="IOException">perf failed; its last line says why.</exception>
    public T Read<T>(Func<Stream, T> read)
    {
        using var overlay = BuildIdCacheOverlay.Create(Matched.Select(m => Contents.ByBuildId[m.BuildId]), BuildIdCacheOverlay.DefaultCache());
        var psi = new ProcessStartInfo(PerfPath) { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var a in PerfRecording.ScriptArguments(DataPath, overlay.Root)) psi.ArgumentList.Add(a);
        using var perf = Process.Start(psi) ?? throw new IOException("could not start perf script");
        var stderr = perf.StandardError.ReadToEndAsync();
        T trace;
        try { trace = read(perf.StandardOutput.BaseStream); }
        finally
        {
            if (!perf.HasExited) perf.StandardOutput.BaseStream.CopyTo(Stream.Null);
            perf.WaitForExit();
        }
        if (perf.ExitCode != 0) throw new IOException($"perf script exited with code {perf.ExitCode}: {LastLine(stderr.GetAwaiter().GetResult())}");
        return trace;
    }

    /// <summary>The modules perf.data's header lists with their build ids (the kernel's and vdso's included, in brackets).</summary>
    internal static IReadOnlyList<PerfModule> PerfModules(string perf, string data)
    {
        var psi = new ProcessStartInfo(perf) { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var a in PerfRecording.BuildIdListArguments(data)) psi.ArgumentList.Add(a);
        using var p = Process.Start(psi) ?? throw new IOException("could not start perf buildid-list");
        var stderr = p.StandardError.ReadToEndAsync();
        var text = p.StandardOutput.ReadToEnd();
        p.WaitForExit();
        if (p.ExitCode != 0) throw new BadInputException($"{data}: perf cannot read it ({LastLine(stderr.GetAwaiter().GetResult())})");
        return PerfBuildIds.Parse(text);
    }

    private static string LastLine(string text) =>
        text.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).LastOrDefault() ?? "(no output)";
}
