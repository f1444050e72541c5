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
          --stacktags F                     add a stack tags file to both traces' built-in serializer tags (each
                                            trace folder's copy, else the tool's); repeatable
          --stacktags-only                  use only the --stacktags file(s) for both traces, not the built-in tags

        Δ = TRACE − BASELINE per run (measured runs, warm-up excluded), judged against run-to-run noise with
        Welch's t-test; the explained view factors out the Reflection\* and Activator\* tags.
        """;

    public Task<int> RunAsync(IReadOnlyList<string> args, CancellationToken cancel)
    {
        var r = new ArgReader(args, new HashSet<string>(StringComparer.OrdinalIgnoreCase) { "help", "h", StackTagArgs.OnlyFlag });
        if (r.Flag("help") || r.Flag("h")) { Console.WriteLine(Usage); return Task.FromResult(ExitCodes.Ok); }
        var format = r.Enum("format", TableFormat.Text);
        var outPath = r.String("out");
        var htmlPath = r.String("html");
        var stackTags = StackTagArgs.Read(r);
        var options = new AnalyzerOptions
        {
            Serializers = r.List("serializers"),
            StackTagsPaths = stackTags.Paths,
            StackTagsOnly = stackTags.Only,
        };
        r.RejectUnknown("diff");
        StackTagArgs.Validate(options);
        var (baselinePaths, tracePaths) = Sides(r.Positional);

        var baselineLaunches = baselinePaths.Select(p => Load(p, options, cancel)).ToList();
        var traceLaunches = tracePaths.Select(p => Load(p, options, cancel)).ToList();
        var diff = TraceDiffer.Compute(
            DiffSideReader.Pool([.. baselineLaunches.Select(l => l.Side)]), baselineLaunches.SelectMany(l => l.Analysis.Runs),
            DiffSideReader.Pool([.. traceLaunches.Select(l => l.Side)]), traceLaunches.SelectMany(l => l.Analysis.Runs));
        var tagged = baselineLaunches.Concat(traceLaunches).ToList();
        if (tagged.Select(l => l.StackTags).Distinct(StringComparer.Ordinal).Count() > 1)
            diff.Warnings.Add($"the traces were tagged with different stack tags files ({string.Join(" vs ", tagged.Select(l => l.Analysis.Trace.StackTagsFile).Distinct())}): tag deltas may reflect the files, not the code; pass --stacktags F --stacktags-only to use one for all");
        var compared = diff.Rows.Count(row => row.Presence == Presence.Both);
        if (options.Serializers.Count > 0 && diff.Rows.Count == 0)
            diff.Warnings.Add($"no runs of {string.Join(", ", options.Serializers)} in either trace");
        else if (compared == 0)
            diff.Warnings.Add(NothingCompared(diff));

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
        // Like analyze: non-zero only when there was nothing to compare. Rows on one side only are listed, but a
        // script that diffs a benchmark against the wrong trace must not read "only in baseline" everywhere as success.
        return Task.FromResult(compared == 0 ? ExitCodes.Failed : ExitCodes.Ok);
    }

    private static string NothingCompared(TraceDiff diff)
    {
        var baseline = diff.Rows.Count(r => r.Presence == Presence.OnlyInBaseline);
        var trace = diff.Rows.Count(r => r.Presence == Presence.OnlyInTrace);
        return baseline + trace == 0
            ? "nothing to compare: neither trace has runs"
            : $"nothing to compare: no serializer, operation and object count has runs in both traces ({baseline} only in the baseline, {trace} only in the trace)";
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

    /// <returns>The side, its analysis, and the text of the stack tags files it was tagged with (read now: a .zip's folder is gone after this).</returns>
    private static (DiffSide Side, TraceAnalysis Analysis, string? StackTags) Load(string path, AnalyzerOptions options, CancellationToken cancel)
    {
        cancel.ThrowIfCancellationRequested();
        using var input = TraceInput.Open(path);
        var analysis = new TraceAnalyzer(options).Analyze(input, CommandRunner.StderrProgress);
        var tags = analysis.Trace.StackTagFiles.Count == 0 ? null : string.Concat(analysis.Trace.StackTagFiles.Select(f => File.ReadAllText(f.Path)));
        return (DiffSideReader.From(analysis, input.ManifestPath, options), analysis, tags);
    }
}
