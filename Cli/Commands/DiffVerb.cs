using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Diff;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Output;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Report;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli.Commands;

/// <summary>`esp diff BASELINE TRACE`: what changed per serializer between two traces, and which stack tags explain it.</summary>
public sealed class DiffVerb : ICommand
{
    public string Name => "diff";
    public string Summary => "compare two traces per serializer: deltas, their noise, and the stack tags that explain them";

    private const string Usage = """
        esp diff BASELINE TRACE [options]   each: trace folder, .nettrace, .zip (or .etl on Windows)
        esp diff B1 B2 .. vs T1 T2 .. [options]
                                            several launches per side: their runs are pooled, so the noise
                                            verdicts see process-to-process variance too (docs/diff.md)

          --format text|csv|json|markdown   output format (default text; JSON fields in docs/diff.md)
          --out F                           write to F instead of the terminal
          --html F                          also write a self-contained HTML page (charts, deltas, tables)
          --serializers a,b                 only these serializers
          --stacktags F                     stack tags file for both traces (default: each trace folder's, else the tool's)

        Δ = TRACE − BASELINE per run (measured runs, warm-up excluded), judged against run-to-run noise with
        Welch's t-test; the explained view factors out the Reflection\* and Activator\* tags.
        """;

    public Task<int> RunAsync(IReadOnlyList<string> args, CancellationToken cancel)
    {
        var r = new ArgReader(args, new HashSet<string>(StringComparer.OrdinalIgnoreCase) { "help", "h" });
        if (r.Flag("help") || r.Flag("h")) { Console.WriteLine(Usage); return Task.FromResult(ExitCodes.Ok); }
        var format = r.Enum("format", TableFormat.Text);
        var outPath = r.String("out");
        var htmlPath = r.String("html");
        var options = new AnalyzerOptions
        {
            Serializers = r.List("serializers"),
            StackTagsPath = r.String("stacktags"),
        };
        r.RejectUnknown("diff");
        var (baselinePaths, tracePaths) = Sides(r.Positional);
        if (options.StackTagsPath is { } st && !File.Exists(st)) throw new UsageException($"--stacktags {st}: no such file");

        var baselineLaunches = baselinePaths.Select(p => Load(p, options, cancel)).ToList();
        var traceLaunches = tracePaths.Select(p => Load(p, options, cancel)).ToList();
        var diff = TraceDiffer.Compute(
            DiffSideReader.Pool([.. baselineLaunches.Select(l => l.Side)]), baselineLaunches.SelectMany(l => l.Analysis.Runs),
            DiffSideReader.Pool([.. traceLaunches.Select(l => l.Side)]), traceLaunches.SelectMany(l => l.Analysis.Runs));
        var tagged = baselineLaunches.Concat(traceLaunches).ToList();
        if (tagged.Select(l => l.StackTags).Distinct(StringComparer.Ordinal).Count() > 1)
            diff.Warnings.Add($"the traces were tagged with different stack tags files ({string.Join(" vs ", tagged.Select(l => l.Analysis.Trace.StackTagsFile).Distinct())}): tag deltas may reflect the files, not the code; pass --stacktags F to use one for all");
        if (options.Serializers.Count > 0 && diff.Rows.Count == 0)
            diff.Warnings.Add($"no runs of {string.Join(", ", options.Serializers)} in either trace");

        if (htmlPath is not null)
        {
            try { File.WriteAllText(htmlPath, DiffHtmlReport.Render(diff)); }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                throw new UsageException($"--html {htmlPath}: cannot write ({ex.Message})");
            }
            Console.Error.WriteLine($"wrote {htmlPath}");
        }
        var text = DiffReport.Render(diff, format);
        if (outPath is null) Console.Write(text);
        else
        {
            File.WriteAllText(outPath, text);
            Console.Error.WriteLine($"wrote {outPath}");
        }
        // Like analyze: non-zero only when there was nothing to compare.
        return Task.FromResult(diff.Rows.Count == 0 ? ExitCodes.Failed : ExitCodes.Ok);
    }

    /// <summary>`A B`, or `A1 A2 .. vs B1 B2 ..` for several launches per side.</summary>
    private static (IReadOnlyList<string> Baseline, IReadOnlyList<string> Trace) Sides(IReadOnlyList<string> positional)
    {
        var separator = positional.Select((p, i) => (p, i)).Where(x => x.p == "vs").Select(x => x.i).ToList();
        if (separator.Count == 0)
        {
            if (positional.Count != 2)
                throw new UsageException("diff needs two traces, BASELINE TRACE, or launches of each side separated by vs: B1 B2 vs T1 T2 (folders, .nettrace, .zip or .etl)");
            return ([positional[0]], [positional[1]]);
        }
        var at = separator[0];
        if (separator.Count > 1 || at == 0 || at == positional.Count - 1)
            throw new UsageException("diff with launches needs one vs with at least one trace on each side: B1 B2 vs T1 T2");
        return (positional.Take(at).ToList(), positional.Skip(at + 1).ToList());
    }

    /// <returns>The side, its analysis, and the text of the stack tags file it was tagged with (read now: a .zip's folder is gone after this).</returns>
    private static (DiffSide Side, TraceAnalysis Analysis, string? StackTags) Load(string path, AnalyzerOptions options, CancellationToken cancel)
    {
        cancel.ThrowIfCancellationRequested();
        using var input = TraceInput.Open(path);
        var analysis = new TraceAnalyzer(options).Analyze(input, CommandRunner.StderrProgress);
        var tags = analysis.Trace.StackTagsFile is { } file ? File.ReadAllText(file) : null;
        return (DiffSideReader.From(analysis, input.ManifestPath, options), analysis, tags);
    }
}
