using System.CommandLine;
using EtwSerializerProfiler.Analyzer;
using EtwSerializerProfiler.Analyzer.Diff;
using EtwSerializerProfiler.Analyzer.Export;
using EtwSerializerProfiler.Analyzer.Input;
using EtwSerializerProfiler.Analyzer.Model;
using EtwSerializerProfiler.Analyzer.Processing;
using EtwSerializerProfiler.Analyzer.Reports;
using EtwSerializerProfiler.Cli.Terminal;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Cli.Commands;

/// <summary>`esp diff BASELINE TRACE`: what changed per serializer between two traces, and which stack tags explain it.</summary>
public static class DiffVerb
{
    public const string Name = "diff";
    public const string Separator = "vs";
    private const string TwoTraces = $"diff needs two traces, BASELINE TRACE, or launches of each side separated by {Separator}: B1 B2 {Separator} T1 T2 (folders, .nettrace, .zip or .etl)";

    /// <summary>Shown after the options in `esp diff --help`.</summary>
    public const string Epilogue = """
        The launch is the unit: with several launches per side (esp diff B1 B2 B3 vs T1 T2 T3) Welch's t-test compares
        the launches' means; with one launch on a side nothing is judged significant, only set against the runs'
        spread and the launch-to-launch noise measured on the build VM (docs/analyzer.md, docs/diff.md).
        Δ = TRACE − BASELINE per operation (measured runs, warm-up excluded); the explained view factors out the
        Reflection* and Activator* tags. --stacktags applies to every trace.
        """;

    public static Command Create(CommonOptions common, IConsole console)
    {
        var traces = new Argument<string[]>("TRACES")
        {
            Description = $"BASELINE TRACE, or B1 B2 .. {Separator} T1 T2 ..: trace folders, .nettrace or .zip files (or .etl on Windows)",
            HelpName = $"BASELINE TRACE|B1 B2 .. {Separator} T1 T2 ..",
            Arity = ArgumentArity.OneOrMore,
        };
        var format = CommonOptions.Format(ReportKind.Diff);
        var command = new Command(Name, "compare traces per serializer: deltas, their noise, and the stack tags that explain them")
        {
            traces, format, common.Tables, common.Out, common.Html, common.Serializers,
        }.WithArgumentsMessage(TwoTraces);
        common.AddStackTags(command);
        command.SetAction((parse, cancel) => CommandRunner.RunAsync(Name, console, () =>
        {
            var options = new AnalyzerOptions
            {
                Serializers = parse.GetValue(common.Serializers)!,
                StackTagsPaths = parse.GetValue(common.StackTags)!,
                StackTagsOnly = parse.GetValue(common.StackTagsOnly),
            };
            return Task.FromResult(Run(parse.GetValue(traces)!, parse.GetValue(format), common.TablesOf(parse, parse.GetValue(format)), parse.GetValue(common.Out), parse.GetValue(common.Html), options, console, cancel));
        }, cancel));
        return command;
    }

    public static int Run(IReadOnlyList<string> traces, TableFormat format, ReportTables tables, string? outPath, string? htmlPath, AnalyzerOptions options, IConsole console, CancellationToken cancel)
    {
        var plan = Exporters.Select(ReportKind.Diff, format, outPath, htmlPath);
        var (baselinePaths, tracePaths) = Sides(traces);
        ReportDocument report;
        int compared;
        using (var progress = console.StartProgress(live: true))
        {
            var baselineLaunches = baselinePaths.Select(p => Load(p, options, progress, cancel)).ToList();
            var traceLaunches = tracePaths.Select(p => Load(p, options, progress, cancel)).ToList();
            var diff = TraceDiffer.CompareLaunches(
                DiffSideReader.Pool([.. baselineLaunches.Select(l => l.Side)]), [.. baselineLaunches.Select(l => l.Analysis.Runs)],
                DiffSideReader.Pool([.. traceLaunches.Select(l => l.Side)]), [.. traceLaunches.Select(l => l.Analysis.Runs)]);
            var tagged = baselineLaunches.Concat(traceLaunches).ToList();
            if (tagged.Select(l => l.StackTags).Distinct(StringComparer.Ordinal).Count() > 1)
                diff.Warnings.Add($"the traces were tagged with different stack tags files ({string.Join(" vs ", tagged.Select(l => l.Analysis.Trace.StackTagsFile).Distinct())}): tag deltas may reflect the files, not the code; pass --stacktags F --stacktags-only to use one for all");
            diff.Warnings.AddRange(TracingCostComparison.Warnings(baselineLaunches.Select(l => l.Analysis.InProcess), traceLaunches.Select(l => l.Analysis.InProcess),
                diff.Rows.Where(r => r.Presence == Presence.Both).Select(r => (r.Serializer, r.Operation, r.Objects)).ToHashSet()));
            compared = diff.Rows.Count(row => row.Presence == Presence.Both);
            if (options.Serializers.Count > 0 && diff.Rows.Count == 0)
                diff.Warnings.Add($"no runs of {string.Join(", ", options.Serializers)} in either trace");
            else if (compared == 0)
                diff.Warnings.Add(diff.NothingCompared());
            report = DiffReport.Document(diff, tables);
            plan.ExportFiles(report, progress);
        }
        plan.ExportReport(report, console.Out, new LineProgress(console.Error));
        // Like analyze: non-zero only when there was nothing to compare. Rows on one side only are listed, but a
        // script that diffs a benchmark against the wrong trace must not read "only in baseline" everywhere as success.
        return compared == 0 ? ExitCodes.Failed : ExitCodes.Ok;
    }

    /// <summary>`A B`, or `A1 A2 .. vs B1 B2 ..` for several launches per side.</summary>
    public static (IReadOnlyList<string> Baseline, IReadOnlyList<string> Trace) Sides(IReadOnlyList<string> positional)
    {
        var separator = positional.Select((p, i) => (p, i)).Where(x => x.p == Separator).Select(x => x.i).ToList();
        if (separator.Count == 0)
        {
            if (positional.Count != 2)
                throw new UsageException(TwoTraces);
            return ([positional[0]], [positional[1]]);
        }
        var at = separator[0];
        if (separator.Count > 1 || at == 0 || at == positional.Count - 1)
            throw new UsageException($"diff with launches needs one {Separator} with at least one trace on each side: B1 B2 {Separator} T1 T2");
        return (positional.Take(at).ToList(), positional.Skip(at + 1).ToList());
    }

    /// <returns>The side, its analysis, and the text of the stack tags files it was tagged with (read now: a .zip's folder is gone after this).</returns>
    private static (DiffSide Side, TraceAnalysis Analysis, string? StackTags) Load(string path, AnalyzerOptions options, IProgress<string> progress, CancellationToken cancel)
    {
        cancel.ThrowIfCancellationRequested();
        using var input = TraceInput.Open(path);
        var analysis = new TraceAnalyzer(options).Analyze(input, progress);
        var tags = analysis.Trace.StackTagFiles.Count == 0 ? null : string.Concat(analysis.Trace.StackTagFiles.Select(f => File.ReadAllText(f.Path)));
        return (DiffSideReader.From(analysis, input.ManifestPath, options), analysis, tags);
    }
}
